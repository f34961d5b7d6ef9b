import path from 'node:path';
import type { JobQueue, RunOverview, RunReads, RunRecords, ScheduleFires } from '../engine/index.js';
import type { Row } from '../model/index.js';
import { RunProblem, runInputs, type RunInputs } from './run-inputs.js';
import { stopReason } from './stop-reason.js';
import { jobFacts, type FailureReason, type RunReport, type StepFacts } from './run-report.js';
import { runLoggedStep, type RunSettings } from './logged-step.js';
import type { StepNote } from './step-folders.js';
import { ToolProblem, type ToolBinaries } from './tool-binaries.js';

/** What a job's run uses: the store, the tools, the state credential it gets, and the settings. */
export interface JobRunParts {
  queue: JobQueue;
  reads: RunReads;
  /** The workspace schedules that make jobs when they fire. */
  schedules: ScheduleFires;
  /** Where the executor notes itself alive. */
  overview: RunOverview;
  records: RunRecords;
  tools: ToolBinaries;
  /** A credential for the job's workspace state alone, living as long as one step may run. */
  stateCredential(inputs: RunInputs): Promise<string>;
  /** Stores a state a step's tool could not upload (errored.tfstate) for its job, and releases the job's lock; the serial it is current at. */
  keepState(note: StepNote, text: string): Promise<number>;
  settings: RunSettings;
}

/** How a job's run in this process ended: its status, and why when it failed (undefined: another took it over, or it is gone). */
export interface JobEnd {
  status: string;
  failure?: { reason: FailureReason; detail: string };
}

/**
 * Runs a job an executor holds, from its first step not yet done: after an approval, the steps
 * after it. A step that fails ends the job as failed (unless its flow says to ignore its error); a
 * plan without changes ends it as noChanges; an approval step gives the job up until a client
 * approves or rejects it; a cancel (a client's, seen by the executor) interrupts the running step.
 */
export async function runJob(parts: JobRunParts, report: RunReport, job: Row, cancel: AbortSignal): Promise<JobEnd> {
  const jobId = String(job.id);
  const { queue } = parts;
  const { executor } = report;
  const facts = jobFacts(job);
  const fail = async (detail: string, reason: FailureReason): Promise<JobEnd> => {
    const moved = await queue.move(jobId, executor, {
      to: 'failed',
      from: ['queue', 'running', 'approved'],
      reason: detail,
      release: true,
    });
    return moved ? { status: 'failed', failure: { reason, detail } } : { status: 'left' };
  };
  const source = await parts.reads.source(jobId);
  if (source === undefined) {
    await queue.move(jobId, executor, { to: 'failed', from: [], release: true });
    return { status: 'left' };
  }
  let inputs: RunInputs;
  try {
    inputs = await runInputs(source);
  } catch (error) {
    if (error instanceof RunProblem) return fail(error.message, 'inputs');
    throw error;
  }
  if (!(await queue.move(jobId, executor, { to: 'running', from: ['queue', 'approved'] }))) return { status: 'left' };
  let binary: string;
  try {
    binary = await parts.tools.locate(inputs.tool.kind, inputs.tool.version);
  } catch (error) {
    if (error instanceof ToolProblem) return fail(error.message, 'tool');
    throw error;
  }
  let planChanges: boolean | undefined;
  let interrupted: string | undefined;
  const remaining = inputs.steps.filter(({ record }) => !['completed', 'notExecuted'].includes(String(record.status)));
  for (const [index, { flow, record, variables }] of remaining.entries()) {
    const stepId = String(record.id);
    const step: StepFacts = { step: flow.step, name: flow.name, type: flow.type };
    const setStep = (values: Record<string, string>) => queue.set(job, parts.records.step, stepId, values);
    const skipRest = async () => {
      for (const later of remaining.slice(index + 1))
        await queue.set(job, parts.records.step, String(later.record.id), { status: 'notExecuted' });
    };
    if (flow.type === 'approval') {
      if (String(record.status) === 'waitingApproval') {
        await setStep({ status: 'completed' });
        report.stepEnded(facts, step, 'completed', 0);
        continue;
      }
      await setStep({ status: 'waitingApproval' });
      report.stepStarted(facts, step);
      const waits = await queue.move(jobId, executor, {
        to: 'waitingApproval',
        from: ['running'],
        values: { approvalTeam: flow.team ?? '' },
        release: true,
      });
      return { status: waits ? 'waitingApproval' : 'left' };
    }
    if (cancel.aborted) break;
    if (flow.type === 'disableWorkspace') {
      await queue.set(job, parts.records.workspace, inputs.workspaceId, { locked: true });
      await setStep({ status: 'completed' });
      report.stepEnded(facts, step, 'completed', 0);
      continue;
    }
    if (flow.type === 'scheduleTemplates') {
      await setStep({ status: 'failed' });
      report.stepEnded(facts, step, 'failed', 0);
      await skipRest();
      return fail(
        `Step ${flow.step} (scheduleTemplates): Stratum does not schedule templates from a flow; add the schedules on the workspace's Schedules tab.`,
        'flow',
      );
    }
    await setStep({
      status: 'running',
      output: `${parts.settings.publicUrl}/tfoutput/v1/organization/${inputs.organizationId}/job/${jobId}/step/${stepId}`,
    });
    // A credential per step, living as long as the step may: a job's steps together may run longer than one credential.
    const credential = await parts.stateCredential(inputs);
    const environment = runEnvironment(parts.settings, inputs, variables.environment, binary, credential);
    const secrets = [...inputs.secrets, credential, ...credentialSecrets(inputs)];
    report.stepStarted(facts, step);
    const started = Date.now();
    const outcome = await runLoggedStep(parts, { inputs, flow, variables, binary, environment, secrets, stepId, jobId, executor, cancel });
    report.stepEnded(facts, step, outcome.kind, Date.now() - started, outcome.kind === 'failed' ? outcome.exitCode : undefined);
    // A client's cancel has marked the job's unfinished steps cancelled already; a stop of the executor has not.
    if (outcome.kind === 'cancelled') {
      await setStep({ status: 'cancelled' });
      if (cancel.reason === stopReason) {
        interrupted = `step ${flow.step} (${flow.name})`;
        await skipRest();
      }
      break;
    }
    if ('commit' in outcome && outcome.commit !== undefined && inputs.ref !== outcome.commit) {
      // Every later step of the job, after an approval too, runs the commit this one ran.
      inputs.ref = outcome.commit;
      if (!(await queue.move(jobId, executor, { to: 'running', from: ['running'], values: { commitId: outcome.commit } })))
        return { status: 'left' };
    }
    if (outcome.kind === 'failed') {
      await setStep({ status: 'failed' });
      if (flow.ignoreError) continue;
      await skipRest();
      return fail(`Step ${flow.step} (${flow.name}) failed: ${outcome.reason}`, 'stepFailed');
    }
    await setStep({ status: 'completed' });
    if (outcome.planChanges !== undefined) {
      planChanges = outcome.planChanges;
      if (!(await queue.move(jobId, executor, { to: 'running', from: ['running'], values: { planChanges } }))) return { status: 'left' };
      if (!planChanges && index < remaining.length - 1) {
        await skipRest();
        break;
      }
    }
  }
  if (cancel.aborted && cancel.reason === stopReason) {
    return fail(
      interrupted === undefined
        ? `The executor running this job (${executor}) stopped (the service shut down) between its steps; run it again.`
        : `The executor running this job (${executor}) stopped (the service shut down) during ${interrupted}, which it interrupted as a cancel does: the step's log shows what the tool saved of the state. Run the job again.`,
      'interrupted',
    );
  }
  // A client cancelled the job: it is cancelled already, and the executor only lets it go.
  if (cancel.aborted) {
    await queue.move(jobId, executor, { to: 'cancelled', from: [], release: true });
    return { status: 'cancelled' };
  }
  const status = planChanges === false ? 'noChanges' : 'completed';
  const ended = await queue.move(jobId, executor, { to: status, from: ['running'], release: true });
  return { status: ended ? status : 'left' };
}

/** The whole environment of a run's processes: nothing of the service's own, but what a run needs. */
function runEnvironment(
  settings: RunSettings,
  inputs: RunInputs,
  variables: Record<string, string>,
  binary: string,
  credential: string,
): Record<string, string> {
  const workspace = `${settings.apiUrl}/tfstate/v1/organization/${inputs.organizationId}/workspace/${inputs.workspaceId}`;
  return {
    ...variables,
    PATH: `${path.dirname(binary)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: settings.directory,
    TF_IN_AUTOMATION: '1',
    TF_INPUT: '0',
    CHECKPOINT_DISABLE: '1',
    TF_HTTP_ADDRESS: `${workspace}/state`,
    TF_HTTP_LOCK_ADDRESS: `${workspace}/lock`,
    TF_HTTP_UNLOCK_ADDRESS: `${workspace}/lock`,
    TF_HTTP_USERNAME: 'stratum',
    TF_HTTP_PASSWORD: credential,
    ...(settings.cliConfig === undefined ? {} : { TF_CLI_CONFIG_FILE: settings.cliConfig }),
  };
}

function credentialSecrets(inputs: RunInputs): string[] {
  const credential = inputs.remote.credential;
  if (credential === undefined) return [];
  return credential.kind === 'token' ? [credential.token] : [credential.privateKey];
}

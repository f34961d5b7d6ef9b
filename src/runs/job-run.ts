import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { JobQueue, RunReads, RunRecords, ScheduleFires } from '../engine/index.js';
import type { Row } from '../model/index.js';
import { stepFolderName } from './leftovers.js';
import { RunProblem, runInputs, type RunInputs } from './run-inputs.js';
import { StepOutput } from './step-output.js';
import { stopReason } from './stop-reason.js';
import { runStep, type StepOutcome } from './step-runner.js';
import { ToolProblem, type ToolBinaries } from './tool-binaries.js';

/** How runs are made, the same for every job of an executor. */
export interface RunSettings {
  /** Where steps get their folders, removed when each ends. */
  directory: string;
  /** The URL the step processes reach the API at (the state backend). */
  apiUrl: string;
  /** The URL clients read step logs at. */
  publicUrl: string;
  stepTimeoutMs: number;
  graceMs: number;
  /** The most characters of a step's log kept. */
  outputLimit: number;
  /** A Terraform CLI configuration every run uses (provider mirrors, plugin cache); undefined: none. */
  cliConfig: string | undefined;
}

/** What a job's run uses: the store, the tools, the state credential it gets, and the settings. */
export interface JobRunParts {
  queue: JobQueue;
  reads: RunReads;
  /** The workspace schedules that make jobs when they fire. */
  schedules: ScheduleFires;
  records: RunRecords;
  tools: ToolBinaries;
  /** A credential for the job's workspace state alone, living as long as one step may run. */
  stateCredential(inputs: RunInputs): Promise<string>;
  settings: RunSettings;
}

const flushMs = 1000;

/**
 * Runs a job an executor holds, from its first step not yet done: after an approval, the steps
 * after it. A step that fails ends the job as failed (unless its flow says to ignore its error); a
 * plan without changes ends it as noChanges; an approval step gives the job up until a client
 * approves or rejects it; a cancel (a client's, seen by the executor) interrupts the running step.
 */
export async function runJob(parts: JobRunParts, executor: string, job: Row, cancel: AbortSignal): Promise<void> {
  const jobId = String(job.id);
  const { queue } = parts;
  const fail = (reason: string) =>
    queue.move(jobId, executor, { to: 'failed', from: ['queue', 'running', 'approved'], reason, release: true });
  const source = await parts.reads.source(jobId);
  if (source === undefined) {
    await queue.move(jobId, executor, { to: 'failed', from: [], release: true });
    return;
  }
  let inputs: RunInputs;
  try {
    inputs = await runInputs(source);
  } catch (error) {
    if (error instanceof RunProblem) {
      await fail(error.message);
      return;
    }
    throw error;
  }
  if (!(await queue.move(jobId, executor, { to: 'running', from: ['queue', 'approved'] }))) return;
  let binary: string;
  try {
    binary = await parts.tools.locate(inputs.tool.kind, inputs.tool.version);
  } catch (error) {
    if (error instanceof ToolProblem) {
      await fail(error.message);
      return;
    }
    throw error;
  }
  let planChanges: boolean | undefined;
  const remaining = inputs.steps.filter(({ record }) => !['completed', 'notExecuted'].includes(String(record.status)));
  for (const [index, { flow, record, variables }] of remaining.entries()) {
    const stepId = String(record.id);
    const setStep = (values: Record<string, string>) => queue.set(job, parts.records.step, stepId, values);
    const skipRest = async () => {
      for (const later of remaining.slice(index + 1))
        await queue.set(job, parts.records.step, String(later.record.id), { status: 'notExecuted' });
    };
    if (flow.type === 'approval') {
      if (String(record.status) === 'waitingApproval') {
        await setStep({ status: 'completed' });
        continue;
      }
      await setStep({ status: 'waitingApproval' });
      await queue.move(jobId, executor, {
        to: 'waitingApproval',
        from: ['running'],
        values: { approvalTeam: flow.team ?? '' },
        release: true,
      });
      return;
    }
    if (cancel.aborted) break;
    if (flow.type === 'disableWorkspace') {
      await queue.set(job, parts.records.workspace, inputs.workspaceId, { locked: true });
      await setStep({ status: 'completed' });
      continue;
    }
    if (flow.type === 'scheduleTemplates') {
      await setStep({ status: 'failed' });
      await skipRest();
      await fail(
        `Step ${flow.step} (scheduleTemplates): Stratum does not schedule templates from a flow; add the schedules on the workspace's Schedules tab.`,
      );
      return;
    }
    await setStep({
      status: 'running',
      output: `${parts.settings.publicUrl}/tfoutput/v1/organization/${inputs.organizationId}/job/${jobId}/step/${stepId}`,
    });
    // A credential per step, living as long as the step may: a job's steps together may run longer than one credential.
    const credential = await parts.stateCredential(inputs);
    const environment = runEnvironment(parts.settings, inputs, variables.environment, binary, credential);
    const secrets = [...inputs.secrets, credential, ...credentialSecrets(inputs)];
    const outcome = await runLoggedStep(parts, { inputs, flow, variables, binary, environment, secrets, stepId, jobId, executor, cancel });
    // A client's cancel has marked the job's unfinished steps cancelled already; a stop of the executor has not.
    if (outcome.kind === 'cancelled') {
      await setStep({ status: 'cancelled' });
      if (cancel.reason === stopReason) await skipRest();
      break;
    }
    if ('commit' in outcome && outcome.commit !== undefined && inputs.ref !== outcome.commit) {
      // Every later step of the job, after an approval too, runs the commit this one ran.
      inputs.ref = outcome.commit;
      if (!(await queue.move(jobId, executor, { to: 'running', from: ['running'], values: { commitId: outcome.commit } }))) return;
    }
    if (outcome.kind === 'failed') {
      await setStep({ status: 'failed' });
      if (flow.ignoreError) continue;
      await skipRest();
      await fail(`Step ${flow.step} (${flow.name}) failed: ${outcome.reason}`);
      return;
    }
    await setStep({ status: 'completed' });
    if (outcome.planChanges !== undefined) {
      planChanges = outcome.planChanges;
      if (!(await queue.move(jobId, executor, { to: 'running', from: ['running'], values: { planChanges } }))) return;
      if (!planChanges && index < remaining.length - 1) {
        await skipRest();
        break;
      }
    }
  }
  if (cancel.aborted && cancel.reason === stopReason) {
    await fail('The executor running this job stopped (the service shut down) during the run; run it again.');
    return;
  }
  // A client cancelled the job: it is cancelled already, and the executor only lets it go.
  if (cancel.aborted) {
    await queue.move(jobId, executor, { to: 'cancelled', from: [], release: true });
    return;
  }
  await queue.move(jobId, executor, { to: planChanges === false ? 'noChanges' : 'completed', from: ['running'], release: true });
}

interface LoggedStep {
  inputs: RunInputs;
  flow: RunInputs['steps'][number]['flow'];
  variables: RunInputs['steps'][number]['variables'];
  binary: string;
  environment: Record<string, string>;
  secrets: string[];
  stepId: string;
  jobId: string;
  executor: string;
  cancel: AbortSignal;
}

/** Runs a step in a folder of its own, its output redacted and stored as it comes, for readers on any replica. */
async function runLoggedStep(parts: JobRunParts, step: LoggedStep): Promise<StepOutcome> {
  const { settings, reads } = parts;
  const output = new StepOutput(settings.outputLimit, step.secrets);
  let dirty = false;
  let flushing = Promise.resolve();
  const flush = (finished: boolean) => {
    dirty = false;
    flushing = flushing.then(() => reads.writeLog(step.stepId, { ...output.snapshot(), finished }));
    return flushing;
  };
  output.on('text', () => {
    dirty = true;
  });
  const timer = setInterval(() => {
    if (dirty) void flush(false).catch(() => undefined);
  }, flushMs);
  // Which process ran the step (host, pid): where to look for its traces when a run goes wrong.
  output.write(`Running on executor ${step.executor}\n`);
  const directory = path.join(settings.directory, stepFolderName(step.jobId, step.flow.step, randomUUID()));
  await mkdir(directory, { recursive: true, mode: 0o700 });
  let outcome: StepOutcome | undefined;
  try {
    outcome = await runStep({
      inputs: step.inputs,
      flow: step.flow,
      variables: step.variables,
      directory,
      binary: step.binary,
      environment: step.environment,
      output,
      cancel: step.cancel,
      timeoutMs: settings.stepTimeoutMs,
      graceMs: settings.graceMs,
      plans: { save: (plan) => reads.savePlan(step.jobId, plan), read: () => reads.readPlan(step.jobId) },
    });
    return outcome;
  } finally {
    clearInterval(timer);
    output.end();
    await flush(true);
    if (outcome?.kind === 'completed' && outcome.planView !== undefined) await reads.writePlanView(step.stepId, outcome.planView);
    await rm(directory, { recursive: true, force: true });
  }
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

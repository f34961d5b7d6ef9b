import path from 'node:path';
import { stopReason } from './stop-reason.js';
import type { FailureReason, JobFacts, RunReport, StepFacts } from './run-report.js';
import { runLoggedStep, type RunSettings } from './logged-step.js';
import { stepOutputPath } from './run-paths.js';
import { status, stepDone, stepStatusAfter, type ClaimedJob, type JobSpec, type RunnerPort, type RunStatus } from './runner-port.js';
import { SandboxUnavailable, type StepIsolation } from './step-sandbox.js';
import { ToolProblem, type ToolBinaries } from './tool-binaries.js';

/** What a job's run uses: the port to the service, the tools, how steps are isolated, and the settings. */
export interface JobRunParts {
  port: RunnerPort;
  tools: ToolBinaries;
  /** The steps' sandbox, or why this machine has none: then every job fails with that reason rather than run unisolated. */
  isolation: StepIsolation | SandboxUnavailable;
  settings: RunSettings;
}

/** How a job's run in this process ended: its status, and why when it failed (`left`: another took it over, or it is gone). */
export interface JobEnd {
  status: RunStatus | 'left';
  failure?: { reason: FailureReason; detail: string };
}

/**
 * Runs a job an executor holds, from its first step not yet done: after an approval, the steps
 * after it. A step that fails ends the job as failed (unless its flow says to ignore its error); a
 * plan without changes ends it as noChanges; an approval step gives the job up until a client
 * approves or rejects it; a cancel (a client's, seen by the executor) interrupts the running step.
 * Everything it reads and reports goes through the port: the job's spec came with its claim.
 */
export async function runJob(parts: JobRunParts, report: RunReport, claimed: ClaimedJob, cancel: AbortSignal): Promise<JobEnd> {
  const facts = claimed.facts;
  const jobId = facts.job;
  const { port } = parts;
  const { executor } = report;
  const fail = (detail: string, reason: FailureReason) => failJob(port, { jobId, executor }, detail, reason);
  if ('problem' in claimed) return fail(claimed.problem, 'inputs');
  const { isolation } = parts;
  if (isolation instanceof SandboxUnavailable)
    return fail(`This executor (${executor}) cannot isolate runs: ${isolation.reason}.`, 'isolation');
  const spec = claimed.spec;
  if (!(await port.jobRunning(jobId, executor, {}))) return { status: 'left' };
  let binary: string;
  try {
    binary = await parts.tools.locate(spec.tool.kind, spec.tool.version);
  } catch (error) {
    if (error instanceof ToolProblem) return fail(error.message, 'tool');
    throw error;
  }
  return runSteps(parts, report, { facts, spec, binary, isolation }, cancel);
}

async function runSteps(
  parts: JobRunParts,
  report: RunReport,
  { facts, spec, binary, isolation }: { facts: JobFacts; spec: JobSpec; binary: string; isolation: StepIsolation },
  cancel: AbortSignal,
): Promise<JobEnd> {
  const jobId = facts.job;
  const { port } = parts;
  const { executor } = report;
  const fail = (detail: string, reason: FailureReason) => failJob(port, { jobId, executor }, detail, reason);
  let planChanges: boolean | undefined;
  let interrupted: string | undefined;
  const remaining = spec.steps.filter((step) => !stepDone.includes(step.status));
  for (const [index, { flow, id: stepId, status: stepStatus, variables }] of remaining.entries()) {
    const step: StepFacts = { step: flow.step, name: flow.name, type: flow.type };
    const moveStep = (to: RunStatus, output?: string) => port.stepMoved(jobId, stepId, output === undefined ? { to } : { to, output });
    const skipRest = async () => {
      for (const later of remaining.slice(index + 1)) await port.stepMoved(jobId, later.id, { to: status.notExecuted });
    };
    if (flow.type === 'approval') {
      if (stepStatus === status.waitingApproval) {
        await moveStep(status.completed);
        report.stepEnded(facts, step, status.completed, 0);
        continue;
      }
      await moveStep(status.waitingApproval);
      report.stepStarted(facts, step);
      const waits = await port.jobWaits(jobId, executor, flow.team ?? '');
      return { status: waits ? status.waitingApproval : 'left' };
    }
    if (cancel.aborted) break;
    if (flow.type === 'disableWorkspace') {
      await port.lockWorkspace(jobId);
      await moveStep(status.completed);
      report.stepEnded(facts, step, status.completed, 0);
      continue;
    }
    if (flow.type === 'scheduleTemplates') {
      await moveStep(status.failed);
      report.stepEnded(facts, step, status.failed, 0);
      await skipRest();
      return fail(
        `Step ${flow.step} (scheduleTemplates): Stratum does not schedule templates from a flow; add the schedules on the workspace's Schedules tab.`,
        'flow',
      );
    }
    await moveStep(status.running, `${parts.settings.publicUrl}${stepOutputPath(spec.organizationId, jobId, stepId)}`);
    // A credential per step, living as long as the step may: a job's steps together may run longer than one credential.
    const credential = await port.stateCredential(jobId);
    const environment = runEnvironment(parts.settings, spec, variables.environment, binary, credential);
    const secrets = [...spec.secrets, credential, ...credentialSecrets(spec)];
    report.stepStarted(facts, step);
    const started = Date.now();
    const outcome = await runLoggedStep(
      { port, settings: parts.settings },
      { spec, flow, variables, binary, environment, secrets, stepId, jobId, executor, cancel, isolation },
    );
    report.stepEnded(
      facts,
      step,
      stepStatusAfter[outcome.kind],
      Date.now() - started,
      outcome.kind === 'unsuccessful' ? outcome.exitCode : undefined,
    );
    // A client's cancel has marked the job's unfinished steps cancelled already; a stop of the executor has not.
    if (outcome.kind === 'interrupted') {
      await moveStep(status.cancelled);
      if (cancel.reason === stopReason) {
        interrupted = `step ${flow.step} (${flow.name})`;
        await skipRest();
      }
      break;
    }
    if ('commit' in outcome && outcome.commit !== undefined && spec.ref !== outcome.commit) {
      // Every later step of the job, after an approval too, runs the commit this one ran.
      spec.ref = outcome.commit;
      if (!(await port.jobRunning(jobId, executor, { commitId: outcome.commit }))) return { status: 'left' };
    }
    if (outcome.kind === 'unsuccessful') {
      await moveStep(status.failed);
      if (flow.ignoreError) continue;
      await skipRest();
      return fail(`Step ${flow.step} (${flow.name}) failed: ${outcome.reason}`, 'stepFailed');
    }
    await moveStep(status.completed);
    if (outcome.planChanges !== undefined) {
      planChanges = outcome.planChanges;
      if (!(await port.jobRunning(jobId, executor, { planChanges }))) return { status: 'left' };
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
    await port.jobEnded(jobId, executor, null);
    return { status: status.cancelled };
  }
  const ended = planChanges === false ? status.noChanges : status.completed;
  return { status: (await port.jobEnded(jobId, executor, { status: ended })) ? ended : 'left' };
}

/** Ends a job as failed, with the reason; `left` when it was no longer the executor's to end. */
async function failJob(
  port: RunnerPort,
  { jobId, executor }: { jobId: string; executor: string },
  detail: string,
  reason: FailureReason,
): Promise<JobEnd> {
  const moved = await port.jobEnded(jobId, executor, { status: status.failed, reason: detail });
  return moved ? { status: status.failed, failure: { reason, detail } } : { status: 'left' };
}

/** The whole environment of a run's processes: nothing of the service's own, but what a run needs. */
function runEnvironment(
  settings: RunSettings,
  spec: JobSpec,
  variables: Record<string, string>,
  binary: string,
  credential: string,
): Record<string, string> {
  const workspace = `${settings.apiUrl}/tfstate/v1/organization/${spec.organizationId}/workspace/${spec.workspaceId}`;
  return {
    ...variables,
    PATH: `${path.dirname(binary)}:/usr/local/bin:/usr/bin:/bin`,
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

function credentialSecrets(spec: JobSpec): string[] {
  const credential = spec.remote.credential;
  if (credential === undefined) return [];
  return credential.kind === 'token' ? [credential.token] : [credential.privateKey];
}

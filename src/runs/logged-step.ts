import { realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import type { JobSpec, RunnerPort } from './runner-port.js';
import { erroredState, makeStepFolder, workFolder, type StepNote } from './step-folders.js';
import type { StepIsolation } from './step-sandbox.js';
import { StepOutput } from './step-output.js';
import { runStep, type StepOutcome } from './step-runner.js';

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

/** Where a step's log, plans and a state its tool could not upload are kept: the service, through the port. */
export interface StepStore {
  port: RunnerPort;
  settings: RunSettings;
}

/** How often a running step's log is stored for its readers. */
const flushMs = 1000;

export interface LoggedStep {
  spec: JobSpec;
  flow: JobSpec['steps'][number]['flow'];
  variables: JobSpec['steps'][number]['variables'];
  binary: string;
  environment: Record<string, string>;
  secrets: string[];
  stepId: string;
  jobId: string;
  executor: string;
  cancel: AbortSignal;
  /** How the step's processes are kept from the service, the machine and other steps. */
  isolation: StepIsolation;
}

/** Runs a step in a folder of its own, its output redacted and stored as it comes, for readers on any replica. */
export async function runLoggedStep(parts: StepStore, step: LoggedStep): Promise<StepOutcome> {
  const { settings, port } = parts;
  const output = new StepOutput(settings.outputLimit, step.secrets);
  let dirty = false;
  let flushing = Promise.resolve();
  const flush = (finished: boolean) => {
    dirty = false;
    flushing = flushing.then(() => port.writeLog(step.stepId, { ...output.snapshot(), finished }));
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
  const note: StepNote = {
    jobId: step.jobId,
    organizationId: step.spec.organizationId,
    workspaceId: step.spec.workspaceId,
    workdir: path.join(workFolder, 'source', step.spec.folder),
  };
  const { folder: directory, work } = await makeStepFolder(settings.directory, note, step.flow.step);
  // The tool's folder, as named and as its link leads (a tools folder of links), and the CLI configuration: read-only in a step.
  const readOnly = [
    path.dirname(step.binary),
    path.dirname(await realpath(step.binary)),
    ...(settings.cliConfig === undefined ? [] : [settings.cliConfig]),
  ];
  let outcome: StepOutcome | undefined;
  let keptFolder = false;
  try {
    outcome = await runStep({
      spec: step.spec,
      flow: step.flow,
      variables: step.variables,
      directory,
      work,
      isolation: step.isolation,
      readOnly: [...new Set(readOnly)],
      binary: step.binary,
      environment: step.environment,
      output,
      cancel: step.cancel,
      timeoutMs: settings.stepTimeoutMs,
      graceMs: settings.graceMs,
      plans: {
        save: (plan) => port.savePlan(step.jobId, plan.toString('base64')),
        read: async () => {
          const plan = await port.readPlan(step.jobId);
          return plan === null ? undefined : Buffer.from(plan, 'base64');
        },
      },
    });
    return outcome;
  } finally {
    clearInterval(timer);
    keptFolder = !(await keepErroredState(port, note, directory, output, step.spec.tool.kind));
    output.end();
    await flush(true);
    if (outcome?.kind === 'succeeded' && outcome.planView !== undefined) await port.savePlanView(step.stepId, outcome.planView);
    if (!keptFolder) await rm(directory, { recursive: true, force: true });
  }
}

/**
 * Stores the state a step's tool wrote to its folder because it could not upload it (a stop cut its
 * backend off, or the backend refused it): what its apply did is in no other place. False when it
 * could not be stored: the folder then stays, and the executor's next start tries again.
 */
async function keepErroredState(port: RunnerPort, note: StepNote, directory: string, output: StepOutput, tool: string): Promise<boolean> {
  let text: string | undefined;
  try {
    text = await erroredState(directory, note.workdir);
    if (text === undefined) return true;
    const serial = await port.keepState(note, text);
    output.write(
      `\n${tool} could not store the state through the state backend and wrote errored.tfstate; Stratum stored it as the workspace's state (serial ${serial}) and released the job's state lock.\n`,
    );
    return true;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    output.write(
      `\nThe state ${tool} wrote to errored.tfstate could not be stored (${reason}); it stays on the executor in ${directory}, and the executor's next start stores it.\n`,
    );
    return text === undefined;
  }
}

import type { JobSpec } from './job-spec.js';
import type { RunStatus } from './job-statuses.js';
import type { JobFacts } from './run-report.js';
import type { StepLog, ToolVersionInUse } from './run-store.js';
import type { StepNote } from './step-folders.js';

export type { JobSpec } from './job-spec.js';
export { status, stepDone, stepStatusAfter, wakesExecutors, type RunStatus } from './job-statuses.js';
export type { StepLog, ToolVersionInUse } from './run-store.js';
/** What wakes an executor: the job status changes every process hears (a job became takeable, or a client ended one it runs). */
export type { JobEvents } from './job-events.js';

/** A job an executor took: who it is, the status it was taken in, and its spec, or why it cannot run. */
export type ClaimedJob = { facts: JobFacts; status: RunStatus } & ({ spec: JobSpec } | { problem: string });

/** What the executor found while a job runs: the commit a step ran, whether its plan changes anything. */
export interface RunFindings {
  commitId?: string;
  planChanges?: boolean;
}

/** A step's move, and the link its log is read at when it starts running. */
export interface StepMove {
  to: RunStatus;
  output?: string;
}

/** How a job's run ended, as the executor reports it. */
export interface JobEnding {
  status: RunStatus;
  reason?: string;
}

/** Whether the executor still holds a job it renews: it runs on, a client cancelled it, or another took it over. */
export type Holding = 'held' | 'endedByClient' | 'lost';

/**
 * What an executor and the service say to each other, in plain JSON values only (no optional
 * argument: JSON makes a missing one null), the seam that can cross a network. The executor takes a job with its spec resolved by the service, renews its hold,
 * reports each step and the job's moves, stores its log and plans, and reads nothing else of the
 * store; the service decides every status through its transition table. It also drives the
 * service's housekeeping of running jobs (who is alive, recovery, schedules) as it polls.
 */
export interface RunnerPort {
  /** Takes the next job for `executor`, held for `leaseMs`; undefined when none waits. */
  claim(executor: string, leaseMs: number): Promise<ClaimedJob | undefined>;
  renew(jobId: string, executor: string, leaseMs: number): Promise<Holding>;
  /** The job runs (again, after an approval), with what the run found so far; false when it cannot (it was cancelled or taken over). */
  jobRunning(jobId: string, executor: string, findings: RunFindings): Promise<boolean>;
  /** The job waits for an approval by `team` and is given up until then; false when it cannot. */
  jobWaits(jobId: string, executor: string, team: string): Promise<boolean>;
  /** The job ended; a null `ending`: the executor only lets it go (a client ended it). False when it was not the executor's to end. */
  jobEnded(jobId: string, executor: string, ending: JobEnding | null): Promise<boolean>;
  /** A step of the job moves, with the link its log is read at when it starts; false when it did not (a client's cancel ended it). */
  stepMoved(jobId: string, stepId: string, move: StepMove): Promise<boolean>;
  /** Locks the job's workspace (a flow's disableWorkspace step). */
  lockWorkspace(jobId: string): Promise<void>;
  /** A credential for the job's workspace state alone, living as long as one step may run. */
  stateCredential(jobId: string): Promise<string>;
  /** Stores what a step has printed so far, redacted already, for its readers on any replica. */
  writeLog(stepId: string, log: StepLog): Promise<void>;
  /** Keeps a plan step's structured view beside its log, redacted as the log is. */
  savePlanView(stepId: string, view: unknown): Promise<void>;
  /** Keeps a job's saved plan (base64) for its apply step; the service seals it. */
  savePlan(jobId: string, plan: string): Promise<void>;
  readPlan(jobId: string): Promise<string | null>;
  /** Stores a state a step's tool could not upload (errored.tfstate) for its job, and releases the job's lock; the serial it is current at. */
  keepState(note: StepNote, text: string): Promise<number>;
  /** Notes that `executor` runs (at most `runs` jobs at once), and when it started. */
  seen(executor: string, runs: number, startedAt: string): Promise<void>;
  left(executor: string): Promise<void>;
  /** Ends jobs whose executor stopped (past their lease, or, `alone`, any other executor's): the jobs ended and who held them. */
  recover(executor: string, alone: boolean): Promise<{ jobId: string; executor: string }[]>;
  /** Fires the workspace schedules due at `now`: the jobs made. */
  fireSchedules(now: string): Promise<{ scheduleId: string; jobId: string }[]>;
  /** The tool versions the workspaces with a source run: what an executor checks it has at its start. */
  versionsInUse(): Promise<ToolVersionInUse[]>;
}

/**
 * A port whose every call, arguments and answer, passes through JSON as it would over a network:
 * the in-process executor talks through it, so nothing but plain values can cross the seam.
 */
export function throughJson(port: RunnerPort): RunnerPort {
  const copy = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));
  return portOf(async (name, args) => copy(await (port[name] as (...values: unknown[]) => Promise<unknown>).apply(port, copy(args))));
}

/** A port whose every call goes through `call` with its name and arguments: a wrapper, or a client of the port elsewhere. */
export function portOf(call: (name: keyof RunnerPort, args: unknown[]) => Promise<unknown>): RunnerPort {
  const port: Partial<Record<keyof RunnerPort, unknown>> = {};
  for (const name of runnerCalls) port[name] = (...args: unknown[]) => call(name, args);
  return port as RunnerPort;
}

/** Every call of the port, so that a wrapper misses none (the compiler checks the list is whole). */
const portCalls: Record<keyof RunnerPort, true> = {
  claim: true,
  renew: true,
  jobRunning: true,
  jobWaits: true,
  jobEnded: true,
  stepMoved: true,
  lockWorkspace: true,
  stateCredential: true,
  writeLog: true,
  savePlanView: true,
  savePlan: true,
  readPlan: true,
  keepState: true,
  seen: true,
  left: true,
  recover: true,
  fireSchedules: true,
  versionsInUse: true,
};

/** The port's calls by name: what the runner API serves and its HTTP client sends. */
export const runnerCalls = Object.keys(portCalls) as (keyof RunnerPort)[];

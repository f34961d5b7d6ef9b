/**
 * The statuses of jobs and steps, and every move between them: the one table that a client's
 * change, the executor and recovery all consult. Nothing else names a status: code elsewhere says
 * `status.running`, and asks `mayMove` whether a move is allowed.
 */

/** A job's and a step's statuses, as Terrakube spells them (its JobStatus, without the workspaces' NeverExecuted). */
export const runStatuses = [
  'pending',
  'waitingApproval',
  'approved',
  'queue',
  'running',
  'completed',
  'noChanges',
  'notExecuted',
  'rejected',
  'cancelled',
  'failed',
  'unknown',
] as const;
export type RunStatus = (typeof runStatuses)[number];

/** Each status by its name, for code that sets or compares one. */
export const status: { readonly [S in RunStatus]: S } = Object.freeze(
  Object.fromEntries(runStatuses.map((name) => [name, name])) as { [S in RunStatus]: S },
);

/**
 * Who moves a job: a client (approve, reject, cancel), the start of a job (its first status), the
 * executor running it, or recovery ending a job whose executor stopped.
 */
export type Mover = 'start' | 'client' | 'executor' | 'recovery';

export interface Transition {
  /** The status the job has; `null` for a job being created. */
  from: RunStatus | null;
  to: RunStatus;
  by: Mover;
  /** The permission a client needs besides changing the job at all (planJob). */
  needs?: string;
}

const move = (by: Mover, from: readonly (RunStatus | null)[], to: RunStatus, needs?: string): Transition[] =>
  from.map((one) => ({ from: one, to, by, ...(needs === undefined ? {} : { needs }) }));

/** Every move a job's status may make. A move from a status to itself (the executor noting what it found) is always allowed to its holder. */
export const jobTransitions: readonly Transition[] = [
  // Created: pending, or failed at once when its template cannot run.
  ...move('start', [null], 'pending'),
  ...move('start', [null], 'failed'),
  // Terrakube's web UI: Approve, Discard, Cancel.
  ...move('client', ['waitingApproval'], 'approved', 'approveJob'),
  ...move('client', ['waitingApproval'], 'rejected', 'approveJob'),
  ...move('client', ['pending', 'queue', 'waitingApproval', 'approved', 'running'], 'cancelled'),
  // An executor takes it, runs it, gives it up for an approval, and ends it.
  ...move('executor', ['pending'], 'queue'),
  ...move('executor', ['queue', 'approved'], 'running'),
  ...move('executor', ['running'], 'waitingApproval'),
  ...move('executor', ['running'], 'completed'),
  ...move('executor', ['running'], 'noChanges'),
  ...move('executor', ['queue', 'running', 'approved'], 'failed'),
  // Its executor stopped before it ended.
  ...move('recovery', ['queue', 'running', 'approved'], 'failed'),
];

/** Whether `by` may move a job from `from` to `to`; the transition when it may. */
export function transitionOf(by: Mover, from: RunStatus | null, to: RunStatus): Transition | undefined {
  if (from === to && by === 'executor' && !finished(to)) return { from, to, by };
  return jobTransitions.find((transition) => transition.by === by && transition.from === from && transition.to === to);
}

/** The statuses `by` may move a job to `to` from. */
export function movesTo(by: Mover, to: RunStatus): RunStatus[] {
  return jobTransitions.filter((t) => t.by === by && t.to === to && t.from !== null).map((t) => t.from as RunStatus);
}

/** Statuses of a job that has not finished: a later job of its workspace waits behind it, as in Terrakube. */
export const unfinishedStatuses: readonly RunStatus[] = ['pending', 'queue', 'running', 'waitingApproval', 'approved'];

export function finished(job: RunStatus): boolean {
  return !unfinishedStatuses.includes(job);
}

/** How a reader (a notification's headline) groups the statuses a job ends in or stops at. */
export const jobOutcomes: Readonly<Record<'succeeded' | 'unsuccessful' | 'needsPeople', readonly RunStatus[]>> = {
  succeeded: ['completed', 'noChanges'],
  unsuccessful: ['failed', 'rejected', 'cancelled'],
  needsPeople: ['waitingApproval'],
};

/** The statuses a job an executor may take waits in: pending, or approved (its run goes on after the approval). */
export const claimable = { fresh: status.pending, approved: status.approved } as const;

/** A job's status that is a live-channel reason for executors to look for work (one became takeable, or one ended). */
export const wakesExecutors: readonly RunStatus[] = ['pending', 'approved', 'cancelled', 'completed', 'noChanges', 'failed', 'rejected'];

/** What a client's ending of a job makes of its unfinished steps, as Terrakube's cancel and reject do. */
export const stepEnds: Readonly<Partial<Record<RunStatus, Readonly<Partial<Record<RunStatus, RunStatus>>>>>> = {
  cancelled: { pending: 'cancelled', running: 'cancelled', waitingApproval: 'cancelled' },
  rejected: { waitingApproval: 'rejected', pending: 'notExecuted' },
};

/** A step's moves as the executor makes them, and what is left of a job's steps once it ends. */
export const stepTransitions: Readonly<Partial<Record<RunStatus, readonly RunStatus[]>>> = {
  pending: ['running', 'waitingApproval', 'completed', 'failed', 'notExecuted'],
  running: ['completed', 'failed', 'cancelled'],
  waitingApproval: ['completed'],
};

/** Whether a step the executor reports on may move from `from` to `to`. */
export function stepMayMove(from: RunStatus, to: RunStatus): boolean {
  return stepTransitions[from]?.includes(to) === true;
}

/** A step's statuses while its log may still grow: a reader streams it until the step leaves them. */
export const liveStep: readonly RunStatus[] = ['pending', 'running'];

/** Steps a job's run has nothing left to do in: it starts from the first step not among these. */
export const stepDone: readonly RunStatus[] = ['completed', 'notExecuted'];

/** The status a step takes after its tool's run: it succeeded, it did not, or it was interrupted. */
export const stepStatusAfter = { succeeded: 'completed', unsuccessful: 'failed', interrupted: 'cancelled' } as const satisfies Record<
  string,
  RunStatus
>;

/** What recovery makes of a step that was running when its executor stopped. */
export const recoveredStep = { from: status.running, to: status.failed } as const;

/** What an ended job leaves of the steps it never reached. */
export const unreachedStep = { from: status.pending, to: status.notExecuted } as const;

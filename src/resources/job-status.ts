import { ApiError, conflict, forbidden } from '../errors.js';
import {
  columnOf,
  type AttributeValues,
  type PendingWrite,
  type ResourceDeclaration,
  type Row,
  type WriteContext,
} from '../model/index.js';

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

/**
 * What a client may make of a job's status (Terrakube's web UI: Approve, Discard, Cancel), from
 * which statuses, and the permission it needs besides changing the job at all (planJob or
 * approveJob). Every other change is the executor's.
 */
const clientMoves: Readonly<Record<string, { from: readonly RunStatus[]; needs?: string }>> = {
  approved: { from: ['waitingApproval'], needs: 'approveJob' },
  rejected: { from: ['waitingApproval'], needs: 'approveJob' },
  cancelled: { from: ['pending', 'queue', 'waitingApproval', 'approved', 'running'] },
};

/** What a client's ending of a job makes of its unfinished steps. */
const stepEnds: Readonly<Partial<Record<RunStatus, Readonly<Record<string, RunStatus>>>>> = {
  cancelled: { pending: 'cancelled', running: 'cancelled', waitingApproval: 'cancelled' },
  rejected: { waitingApproval: 'rejected', pending: 'notExecuted' },
};

/** A change of a job's status: the job as stored before it, and the status it takes. */
export interface JobStatusChange {
  job: Row;
  from: RunStatus | undefined;
  to: RunStatus;
  /** Why, when the server decides (a template that cannot run). */
  reason?: string;
}

/**
 * The one place a job's status changes, in the transaction of the change: the job takes it, and
 * its workspace's lastJobStatus and lastJobDate follow when it is the workspace's newest job. What
 * reacts to a job's status (notifications, the live channel) hooks in here.
 */
export async function changeJobStatus(
  context: WriteContext,
  records: { job: ResourceDeclaration; workspace: ResourceDeclaration; step: ResourceDeclaration },
  change: JobStatusChange,
): Promise<void> {
  const id = String(change.job.id);
  const workspaceId = String(change.job.workspace_id);
  const values: AttributeValues = { status: change.to };
  if (change.reason !== undefined) values.comments = change.reason;
  await context.set(records.job, id, values);
  // A job a client ends says so of its steps at once, as Terrakube's cancel does: a page that stops
  // polling once the job has ended shows no step still running.
  const endsSteps = stepEnds[change.to];
  if (endsSteps !== undefined) {
    for (const step of await context.children(records.step, id)) {
      const next = endsSteps[String(step.status)];
      if (next !== undefined) await context.set(records.step, String(step.id), { status: next });
    }
  }
  const newest = await context.newest(records.job, 'workspace_id', workspaceId);
  if (newest === undefined || String(newest.id) === id)
    await context.set(records.workspace, workspaceId, { lastJobStatus: change.to, lastJobDate: new Date().toISOString() });
  context.emit('jobStatusChanged', {
    jobId: Number(id),
    workspaceId,
    organizationId: String(change.job.organization_id),
    templateId: String(change.job.template_reference),
    status: change.to,
  });
}

/**
 * A client's change of a job's status, checked: only the moves above, from the statuses they
 * start from (409 otherwise), by a caller who holds what the move needs (403).
 */
export async function checkClientMove(write: PendingWrite, current: Row): Promise<RunStatus | undefined> {
  const to = write.values.status;
  const from = String(current[columnOf('status')]) as RunStatus;
  if (typeof to !== 'string' || to === from) return undefined;
  const move = Object.hasOwn(clientMoves, to) ? clientMoves[to] : undefined;
  if (move === undefined)
    throw new ApiError(422, {
      code: 'invalid_value',
      detail: `A job's status moves to ${to} as it runs; a client may only set approved, rejected or cancelled.`,
      at: { attribute: 'status' },
    });
  if (!move.from.includes(from))
    throw conflict(`This job is ${from}; it can be ${to} only while it is ${move.from.join(', ')}.`, { attribute: 'status' });
  if (move.needs !== undefined && !(await write.holds(move.needs)))
    throw forbidden(`Setting a job ${to} needs the ${move.needs} permission, from a team or from a grant on its workspace.`);
  return to as RunStatus;
}

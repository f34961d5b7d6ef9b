import type { ServiceTransaction } from '../engine/index.js';
import type { Row } from '../model/index.js';
import { unreachedStep, type RunStatus } from './job-statuses.js';
import type { RunRecords } from './run-records.js';

/** Which job holds each workspace, the executor running it (none while it waits for an approval), and its lease. */
export const runTable = 'workspace_run';
/** When an executor last took a job of each organization: whose turn the next claim gives (claim-queries.ts). */
export const organizationTurnTable = 'organization_turn';

/** A job as stored, in the transaction; undefined when it is gone. */
export function jobIn(tx: ServiceTransaction, records: RunRecords, jobId: string): Promise<Row | undefined> {
  return tx.db.selectFrom(records.job.table).selectAll().where('id', '=', jobId).executeTakeFirst();
}

/**
 * What an ended job leaves: steps it never reached are notExecuted (a job that failed before its
 * first step too), and no state lock stays in its name (a tool killed before it unlocked).
 */
export async function leaveEndedJob(tx: ServiceTransaction, records: RunRecords, job: Row): Promise<void> {
  await moveSteps(tx, records, job, unreachedStep);
  const place = { workspaceId: String(job.workspace_id), organizationId: String(job.organization_id) };
  await tx.releaseJobLock(place, String(job.id));
}

/** Moves every step of a job that has status `from` to `to`; answers the ids of those moved. */
export async function moveSteps(
  tx: ServiceTransaction,
  records: RunRecords,
  job: Row,
  { from, to }: { from: RunStatus; to: RunStatus },
): Promise<string[]> {
  const context = tx.records(String(job.organization_id));
  const steps = await tx.db.selectFrom(records.step.table).select('id').where('job_id', '=', job.id).where('status', '=', from).execute();
  const ids = steps.map((step) => String(step.id));
  for (const id of ids) await context.set(records.step, id, { status: to });
  return ids;
}

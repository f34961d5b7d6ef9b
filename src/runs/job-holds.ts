import type { ServiceTransaction } from '../engine/index.js';
import type { Row } from '../model/index.js';
import { unreachedStep } from './job-statuses.js';
import type { RunRecords } from './run-records.js';

/** Which job holds each workspace, the executor running it (none while it waits for an approval), and its lease. */
export const runTable = 'workspace_run';

/** A job as stored, in the transaction; undefined when it is gone. */
export function jobIn(tx: ServiceTransaction, records: RunRecords, jobId: string): Promise<Row | undefined> {
  return tx.db.selectFrom(records.job.table).selectAll().where('id', '=', jobId).executeTakeFirst();
}

/**
 * What an ended job leaves: steps it never reached are notExecuted (a job that failed before its
 * first step too), and no state lock stays in its name (a tool killed before it unlocked).
 */
export async function jobEnded(tx: ServiceTransaction, records: RunRecords, job: Row): Promise<void> {
  const context = tx.records(String(job.organization_id));
  const waiting = await tx.db
    .selectFrom(records.step.table)
    .select('id')
    .where('job_id', '=', job.id)
    .where('status', '=', unreachedStep.from)
    .execute();
  for (const step of waiting) await context.set(records.step, String(step.id), { status: unreachedStep.to });
  const place = { workspaceId: String(job.workspace_id), organizationId: String(job.organization_id) };
  await tx.releaseJobLock(place, String(job.id));
}

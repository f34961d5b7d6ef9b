import type { Engine } from '../engine/index.js';
import { runTable } from './job-holds.js';
import { unfinishedStatuses } from './job-statuses.js';
import type { RunRecords } from './run-records.js';

/** A job a state credential names: its id, and the workspace and organization the credential is for. */
export interface CredentialJob {
  organizationId: string;
  workspaceId: string;
  jobReference: string;
}

/**
 * Whether the job a state credential was minted for still runs, for that workspace: unfinished, or
 * ended by a client while its executor still holds it (a cancelled apply saves its state and
 * releases its lock as it stops). A credential copied out of a run's log or environment is then of
 * no use once the job has let go.
 */
export type JobLiveness = (job: CredentialJob) => Promise<boolean>;

export function jobLiveness(engine: Engine, records: RunRecords): JobLiveness {
  const { db } = engine.work('service');
  return async ({ organizationId, workspaceId, jobReference }) => {
    const job = await db
      .selectFrom(records.job.table)
      .select(['id', 'status'])
      .where('id', '=', jobReference)
      .where('workspace_id', '=', workspaceId)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    if (job === undefined) return false;
    if ((unfinishedStatuses as readonly string[]).includes(String(job.status))) return true;
    const held = await db
      .selectFrom(runTable)
      .select('job_id')
      .where('job_id', '=', job.id)
      .where('executor', 'is not', null)
      .executeTakeFirst();
    return held !== undefined;
  };
}

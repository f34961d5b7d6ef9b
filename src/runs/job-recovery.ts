import type { ServiceWork } from '../engine/index.js';
import { heldJobs } from './claim-queries.js';
import { changeJobStatus } from './job-changes.js';
import { leaveEndedJob, jobIn, moveSteps, runTable } from './job-holds.js';
import { recoveredStep, status, transitionOf, type RunStatus } from './job-statuses.js';
import type { RunRecords } from './run-records.js';
import { finishLogs } from './run-store.js';

/**
 * Ends jobs whose executor stopped: every job held past its lease, and, when `orphaned` says so,
 * those of an executor known gone (the one process of an embedded store, at its start). A job that
 * was queued or running fails with the reason, its running steps fail, the state lock its run held
 * is released, and its workspace is free. Answers the ids of the jobs ended.
 */
export async function recoverJobs(
  work: ServiceWork,
  records: RunRecords,
  orphaned: (executor: string) => boolean,
): Promise<{ jobId: string; executor: string }[]> {
  const now = new Date().toISOString();
  const held = await heldJobs(work.db).execute();
  const ended: { jobId: string; executor: string }[] = [];
  for (const run of held) {
    const executor = String(run.executor);
    if (!orphaned(executor) && String(run.lease_until) >= now) continue;
    const recovered = await work.asRecovery().transaction(async (tx) => {
      const gone = await tx.db
        .deleteFrom(runTable)
        .where('job_id', '=', run.job_id)
        .where('executor', '=', executor)
        .where('lease_until', '=', run.lease_until)
        .executeTakeFirst();
      if (Number(gone.numDeletedRows) !== 1) return false;
      const job = await jobIn(tx, records, String(run.job_id));
      if (job === undefined) return false;
      const context = tx.records(String(job.organization_id));
      if (transitionOf('recovery', String(job.status) as RunStatus, status.failed) !== undefined) {
        const reason = `The executor running this job (${executor}) stopped before the job ended; the job failed and its state lock was released. Run it again.`;
        await changeJobStatus(context, records, { job, by: 'recovery', to: status.failed, reason });
      }
      const steps = await moveSteps(tx, records, job, recoveredStep);
      // Their logs end here: a reader of their stream gets the end, not a wait for lines that never come.
      await finishLogs(tx.db, steps);
      await leaveEndedJob(tx, records, job);
      return true;
    }, String(run.job_id));
    if (recovered) ended.push({ jobId: String(run.job_id), executor });
  }
  return ended;
}

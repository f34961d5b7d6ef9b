import type { ServiceTransaction, ServiceWork } from '../engine/index.js';
import { ApiError } from '../errors.js';
import type { AttributeValues, Row, WriteContext } from '../model/index.js';
import { changeJobStatus } from './job-changes.js';
import { approvedUnheld, releaseEndedHolds, takeablePending, type Pool } from './claim-queries.js';
import { leaveEndedJob, jobIn, organizationTurnTable, runTable } from './job-holds.js';
import { claimable, status, stepMayMove, transitionOf, type RunStatus } from './job-statuses.js';
import type { RunRecords } from './run-records.js';

/** A change an executor makes to a job it holds. */
export interface JobMove {
  /** Made only when the transition table lets the executor make it: a job a client cancelled meanwhile stays cancelled. */
  to: RunStatus;
  reason?: string;
  /** Attributes the run found (commitId, planChanges, approvalTeam). */
  values?: AttributeValues;
  /** Gives the job up: it waits for an approval, or it has ended. */
  release?: boolean;
}

/**
 * The store's side of running jobs: which job an executor takes next, leases that say it still
 * runs, its status moves (as the transition table allows, through the one place statuses change),
 * and its steps' moves (job-recovery.ts ends the jobs of executors that stopped). A job holds its workspace from
 * the moment an executor takes it until it ends (through an approval too), as a row keyed by the
 * workspace: two executors can never hold one workspace, nor one job, whatever races between
 * replicas. Every write is one transaction of the service's work, whose changes name the job.
 */
export class JobQueue {
  constructor(
    private readonly work: ServiceWork,
    private readonly records: RunRecords,
  ) {}

  private get table(): string {
    return this.records.job.table;
  }

  /**
   * Takes the next job of `pool` for `executor`: an approved one nobody runs (its run goes on), or the oldest
   * pending one of a free workspace with no unfinished job before it. Undefined when none waits.
   */
  async claim(executor: string, leaseMs: number, pool: Pool): Promise<Row | undefined> {
    // A job a client ended while nobody ran it (rejected, cancelled while waiting) frees its workspace.
    await releaseEndedHolds(this.work.db, this.records).execute();
    for (const { id } of await approvedUnheld(this.work.db, this.records, pool).execute()) {
      const claimed = await this.resume(String(id), executor, leaseMs);
      if (claimed !== undefined) return claimed;
    }
    const pending = await takeablePending(this.work.db, this.records, pool).execute();
    for (const candidate of pending) {
      try {
        const claimed = await this.take(candidate, executor, leaseMs);
        if (claimed !== undefined) return claimed;
      } catch (error) {
        // Another executor took this workspace first: its key refused the second.
        if (error instanceof ApiError && error.status === 409) continue;
        throw error;
      }
    }
    return undefined;
  }

  private take(candidate: Row, executor: string, leaseMs: number): Promise<Row | undefined> {
    return this.work.transaction(async (tx) => {
      const job = await this.jobIn(tx, String(candidate.id));
      if (job?.status !== claimable.fresh) return undefined;
      await tx.db
        .insertInto(runTable)
        .values({ workspace_id: job.workspace_id, job_id: job.id, executor, lease_until: leaseEnd(leaseMs) })
        .execute();
      // The organization's turn is taken: the next claim serves the others first.
      const takenAt = new Date().toISOString();
      await tx.db
        .insertInto(organizationTurnTable)
        .values({ organization_id: job.organization_id, taken_at: takenAt })
        .onConflict((conflict) => conflict.column('organization_id').doUpdateSet({ taken_at: takenAt }))
        .execute();
      await changeJobStatus(this.context(tx, job), this.records, { job, by: 'executor', to: status.queue });
      return this.jobIn(tx, String(job.id));
    }, String(candidate.id));
  }

  private resume(jobId: string, executor: string, leaseMs: number): Promise<Row | undefined> {
    return this.work.transaction(async (tx) => {
      const taken = await tx.db
        .updateTable(runTable)
        .set({ executor, lease_until: leaseEnd(leaseMs) })
        .where('job_id', '=', jobId)
        .where('executor', 'is', null)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) return undefined;
      const job = await this.jobIn(tx, jobId);
      return job?.status === claimable.approved ? job : undefined;
    }, jobId);
  }

  /** Extends the lease; the job's status, or undefined when `executor` no longer holds it. */
  async renew(jobId: string, executor: string, leaseMs: number): Promise<string | undefined> {
    const renewed = await this.work.db
      .updateTable(runTable)
      .set({ lease_until: leaseEnd(leaseMs) })
      .where('job_id', '=', jobId)
      .where('executor', '=', executor)
      .executeTakeFirst();
    if (Number(renewed.numUpdatedRows) !== 1) return undefined;
    const row = await this.work.db.selectFrom(this.table).select('status').where('id', '=', jobId).executeTakeFirst();
    return row === undefined ? undefined : String(row.status);
  }

  /**
   * Moves a job `executor` holds, as the transition table lets the executor; false when it no
   * longer holds it, or the move is not one the table allows from the job's status now (a client
   * cancelled it meanwhile). A move that `release`s, or one refused, gives the job up: waiting for
   * an approval it keeps its workspace, ended it frees it.
   */
  move(jobId: string, executor: string, move: JobMove): Promise<boolean> {
    return this.work.transaction(async (tx) => {
      const job = await this.heldBy(tx, jobId, executor);
      if (job === undefined) return false;
      const from = String(job.status) as RunStatus;
      const moves = transitionOf('executor', from, move.to) !== undefined;
      if (moves) {
        const context = this.context(tx, job);
        if (move.values !== undefined) await context.set(this.records.job, jobId, move.values);
        if (from !== move.to) {
          const reason = move.reason === undefined ? {} : { reason: move.reason };
          await changeJobStatus(context, this.records, { job, by: 'executor', to: move.to, ...reason });
        }
      }
      if (move.release === true || !moves) await this.giveUp(tx, job, moves && move.to === status.waitingApproval);
      return moves;
    }, jobId);
  }

  /** Gives up a job `executor` holds without moving it: one a client ended meanwhile. */
  letGo(jobId: string, executor: string): Promise<void> {
    return this.work.transaction(async (tx) => {
      const job = await this.heldBy(tx, jobId, executor);
      if (job !== undefined) await this.giveUp(tx, job, String(job.status) === status.waitingApproval);
    }, jobId);
  }

  /**
   * Moves a step of a job the executor runs, as the step table allows (a step a client's cancel
   * ended stays so), with the link its log is read at when it starts; false when it did not move.
   */
  step(jobId: string, stepId: string, to: RunStatus, output?: string): Promise<boolean> {
    return this.work.transaction(async (tx) => {
      const step = await tx.db.selectFrom(this.records.step.table).select(['status', 'job_id']).where('id', '=', stepId).executeTakeFirst();
      const job = await this.jobIn(tx, jobId);
      if (step === undefined || job === undefined || String(step.job_id) !== jobId) return false;
      if (!stepMayMove(String(step.status) as RunStatus, to)) return false;
      await this.context(tx, job).set(this.records.step, stepId, { status: to, ...(output === undefined ? {} : { output }) });
      return true;
    }, jobId);
  }

  /** Locks a job's workspace (a flow's disableWorkspace step): later jobs wait until a person unlocks it. */
  lockWorkspace(jobId: string): Promise<void> {
    return this.work.transaction(async (tx) => {
      const job = await this.jobIn(tx, jobId);
      if (job !== undefined) await this.context(tx, job).set(this.records.workspace, String(job.workspace_id), { locked: true });
    }, jobId);
  }

  private async giveUp(tx: ServiceTransaction, job: Row, waits: boolean): Promise<void> {
    if (waits) {
      await tx.db.updateTable(runTable).set({ executor: null, lease_until: null }).where('job_id', '=', job.id).execute();
      return;
    }
    await tx.db.deleteFrom(runTable).where('job_id', '=', job.id).execute();
    await leaveEndedJob(tx, this.records, job);
  }

  /** The job, when `executor` holds it. */
  private async heldBy(tx: ServiceTransaction, jobId: string, executor: string): Promise<Row | undefined> {
    const held = await tx.db.selectFrom(runTable).select('executor').where('job_id', '=', jobId).executeTakeFirst();
    return held?.executor === executor ? this.jobIn(tx, jobId) : undefined;
  }

  private jobIn(tx: ServiceTransaction, jobId: string): Promise<Row | undefined> {
    return jobIn(tx, this.records, jobId);
  }

  private context(tx: ServiceTransaction, job: Row): WriteContext {
    return tx.records(String(job.organization_id));
  }
}

const leaseEnd = (leaseMs: number) => new Date(Date.now() + leaseMs).toISOString();

import { ApiError } from '../errors.js';
import type { AttributeValues, ResourceDeclaration, Row, WriteContext } from '../model/index.js';
import { unfinishedStatuses, type RunRecords } from './run-records.js';
import { inTransaction, type Scope } from './scope.js';
import { finishLogs } from './run-reads.js';
import { jobHolder, releaseLockOf } from './state-lock.js';
import { writeContext } from './write.js';

/** Which job holds each workspace, the executor running it (none while it waits for an approval), and its lease. */
const runTable = 'workspace_run';
/** A change an executor makes to a job it holds. */
export interface JobMove {
  to: string;
  /** Only from these statuses: a job a client cancelled meanwhile stays cancelled. */
  from: readonly string[];
  reason?: string;
  /** Attributes the run found (commitId, planChanges, approvalTeam). */
  values?: AttributeValues;
  /** Gives the job up: it waits for an approval, or it has ended. */
  release?: boolean;
}

/**
 * The store's side of running jobs: which job an executor takes next, leases that say it still
 * runs, its status moves (through the one place statuses change), and the recovery of jobs whose
 * executor stopped. A job holds its workspace from the moment an executor takes it until it ends
 * (through an approval too), as a row keyed by the workspace: two executors can never hold one
 * workspace, nor one job, whatever races between replicas.
 */
export class JobQueue {
  constructor(
    private readonly scope: Scope,
    private readonly records: RunRecords,
  ) {}

  private get table(): string {
    return this.records.job.table;
  }

  /**
   * Takes the next job for `executor`: an approved one nobody runs (its run goes on), or the oldest
   * pending one of a free workspace with no unfinished job before it. Undefined when none waits.
   */
  async claim(executor: string, leaseMs: number): Promise<Row | undefined> {
    // A job a client ended while nobody ran it (rejected, cancelled while waiting) frees its workspace.
    await this.scope.db
      .deleteFrom(runTable)
      .where('executor', 'is', null)
      .where('job_id', 'not in', this.scope.db.selectFrom(this.table).select('id').where('status', 'in', unfinishedStatuses))
      .execute();
    const approved = await this.scope.db
      .selectFrom(runTable)
      .innerJoin(`${this.table} as j`, 'j.id', `${runTable}.job_id`)
      .select('j.id')
      .where(`${runTable}.executor`, 'is', null)
      .where('j.status', '=', 'approved')
      .limit(20)
      .execute();
    for (const { id } of approved) {
      const claimed = await this.resume(String(id), executor, leaseMs);
      if (claimed !== undefined) return claimed;
    }
    const pending = await this.scope.db
      .selectFrom(`${this.table} as j`)
      .selectAll('j')
      .where('j.status', '=', 'pending')
      .where((eb) =>
        eb.not(eb.exists(eb.selectFrom(runTable).select('job_id').whereRef(`${runTable}.workspace_id`, '=', 'j.workspace_id'))),
      )
      // A locked workspace keeps its jobs waiting, as in Terrakube, until it is unlocked.
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom(`${this.records.workspace.table} as w`)
              .select('w.id')
              .whereRef('w.id', '=', 'j.workspace_id')
              .where('w.locked', '=', 1),
          ),
        ),
      )
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom(`${this.table} as e`)
              .select('e.id')
              .whereRef('e.workspace_id', '=', 'j.workspace_id')
              .where('e.status', 'in', unfinishedStatuses)
              .where((inner) =>
                inner.or([
                  inner('e.created_date', '<', inner.ref('j.created_date')),
                  inner.and([inner('e.created_date', '=', inner.ref('j.created_date')), inner('e.id', '<', inner.ref('j.id'))]),
                ]),
              ),
          ),
        ),
      )
      .orderBy('j.created_date')
      .orderBy('j.id')
      .limit(20)
      .execute();
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
    return inTransaction(this.forJob(candidate.id), undefined, async (tx) => {
      const job = await tx.db.selectFrom(this.table).selectAll().where('id', '=', candidate.id).executeTakeFirst();
      if (job?.status !== 'pending') return undefined;
      await tx.db
        .insertInto(runTable)
        .values({ workspace_id: job.workspace_id, job_id: job.id, executor, lease_until: leaseEnd(leaseMs) })
        .execute();
      await this.records.moveJob(this.context(tx, job), { job, from: 'pending', to: 'queue' });
      return tx.db.selectFrom(this.table).selectAll().where('id', '=', job.id).executeTakeFirst();
    });
  }

  private resume(jobId: string, executor: string, leaseMs: number): Promise<Row | undefined> {
    return inTransaction(this.forJob(jobId), undefined, async (tx) => {
      const taken = await tx.db
        .updateTable(runTable)
        .set({ executor, lease_until: leaseEnd(leaseMs) })
        .where('job_id', '=', jobId)
        .where('executor', 'is', null)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) return undefined;
      return tx.db.selectFrom(this.table).selectAll().where('id', '=', jobId).where('status', '=', 'approved').executeTakeFirst();
    });
  }

  /** Extends the lease; the job's status, or undefined when `executor` no longer holds it. */
  async renew(jobId: string, executor: string, leaseMs: number): Promise<string | undefined> {
    const renewed = await this.scope.db
      .updateTable(runTable)
      .set({ lease_until: leaseEnd(leaseMs) })
      .where('job_id', '=', jobId)
      .where('executor', '=', executor)
      .executeTakeFirst();
    if (Number(renewed.numUpdatedRows) !== 1) return undefined;
    const row = await this.scope.db.selectFrom(this.table).select('status').where('id', '=', jobId).executeTakeFirst();
    return row === undefined ? undefined : String(row.status);
  }

  /** Moves a job `executor` holds; false when it no longer holds it, or the job left the statuses the move starts from. */
  move(jobId: string, executor: string, move: JobMove): Promise<boolean> {
    return inTransaction(this.forJob(jobId), undefined, async (tx) => {
      const held = await tx.db.selectFrom(runTable).select('executor').where('job_id', '=', jobId).executeTakeFirst();
      const job = await tx.db.selectFrom(this.table).selectAll().where('id', '=', jobId).executeTakeFirst();
      if (job === undefined || held?.executor !== executor) return false;
      const from = String(job.status);
      const moves = move.from.includes(from);
      if (moves) {
        const context = this.context(tx, job);
        if (move.values !== undefined) await context.set(this.records.job, jobId, move.values);
        if (from !== move.to)
          await this.records.moveJob(context, { job, from, to: move.to, ...(move.reason === undefined ? {} : { reason: move.reason }) });
      }
      if (move.release === true || !moves) {
        // Waiting for an approval, the job keeps its workspace; ended, it frees it.
        const waits = moves && move.to === 'waitingApproval';
        if (waits) await tx.db.updateTable(runTable).set({ executor: null, lease_until: null }).where('job_id', '=', jobId).execute();
        else {
          await tx.db.deleteFrom(runTable).where('job_id', '=', jobId).execute();
          await this.ended(tx, job);
        }
      }
      return moves;
    });
  }

  /** Sets attributes the server maintains on a record of a job's run: a step's status and output link, its workspace's lock. */
  async set(job: Row, resource: ResourceDeclaration, id: string, values: AttributeValues): Promise<void> {
    await inTransaction(this.forJob(job.id), undefined, (tx) => this.context(tx, job).set(resource, id, values));
  }

  /**
   * Ends jobs whose executor stopped: every job held past its lease, and, when `orphaned` says so,
   * those of an executor known gone (the one process of an embedded store, at its start). A job that
   * was queued or running fails with the reason, its running steps fail, the state lock its run held
   * is released, and its workspace is free. Answers the ids of the jobs ended.
   */
  async recover(orphaned: (executor: string) => boolean): Promise<{ jobId: string; executor: string }[]> {
    const now = new Date().toISOString();
    const held = await this.scope.db.selectFrom(runTable).selectAll().where('executor', 'is not', null).execute();
    const ended: { jobId: string; executor: string }[] = [];
    for (const run of held) {
      const executor = String(run.executor);
      if (!orphaned(executor) && String(run.lease_until) >= now) continue;
      const recovered = await inTransaction(this.forJob(run.job_id, 'recovery'), undefined, async (tx) => {
        const gone = await tx.db
          .deleteFrom(runTable)
          .where('job_id', '=', run.job_id)
          .where('executor', '=', executor)
          .where('lease_until', '=', run.lease_until)
          .executeTakeFirst();
        if (Number(gone.numDeletedRows) !== 1) return false;
        const job = await tx.db.selectFrom(this.table).selectAll().where('id', '=', run.job_id).executeTakeFirst();
        if (job === undefined) return false;
        const from = String(job.status);
        const context = this.context(tx, job);
        if (from === 'queue' || from === 'running' || from === 'approved') {
          const reason = `The executor running this job (${executor}) stopped before the job ended; the job failed and its state lock was released. Run it again.`;
          await this.records.moveJob(context, { job, from, to: 'failed', reason });
        }
        const steps = await tx.db
          .selectFrom(this.records.step.table)
          .select('id')
          .where('job_id', '=', job.id)
          .where('status', '=', 'running')
          .execute();
        for (const step of steps) await context.set(this.records.step, String(step.id), { status: 'failed' });
        // Their logs end here: a reader of their stream gets the end, not a wait for lines that never come.
        await finishLogs(
          tx.db,
          steps.map((step) => String(step.id)),
        );
        await this.ended(tx, job);
        return true;
      });
      if (recovered) ended.push({ jobId: String(run.job_id), executor });
    }
    return ended;
  }

  /**
   * What an ended job leaves: steps it never reached are notExecuted (a job that failed before its
   * first step too), and no state lock stays in its name (a tool killed before it unlocked).
   */
  private async ended(tx: Scope, job: Row): Promise<void> {
    const context = this.context(tx, job);
    const waiting = await tx.db
      .selectFrom(this.records.step.table)
      .select('id')
      .where('job_id', '=', job.id)
      .where('status', '=', 'pending')
      .execute();
    for (const step of waiting) await context.set(this.records.step, String(step.id), { status: 'notExecuted' });
    const place = { workspaceId: String(job.workspace_id), organizationId: String(job.organization_id) };
    await releaseLockOf(tx, place, jobHolder(String(job.id)));
  }

  /**
   * The scope of the executor's work on one job, whose changes name the job: its moves as the
   * executor's, or recovery's when a restart ends a job its executor left.
   */
  private forJob(jobId: unknown, transport: 'executor' | 'recovery' = 'executor'): Scope {
    return { ...this.scope, provenance: { ...this.scope.provenance, transport, jobId: String(jobId) } };
  }

  private context(tx: Scope, job: Row): WriteContext {
    return writeContext(tx, () => Promise.resolve(String(job.organization_id)), new Date().toISOString());
  }
}

const leaseEnd = (leaseMs: number) => new Date(Date.now() + leaseMs).toISOString();

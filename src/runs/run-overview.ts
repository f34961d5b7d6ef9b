import type { ServiceWork } from '../engine/index.js';
import { claimable, unfinishedStatuses } from './job-statuses.js';
import type { RunRecords } from './run-records.js';

/** The executors running now, and when each was last seen. */
const executorTable = 'executor_seen';

/** What the queue looks like across every executor of the store: what an operator alerts on. */
export interface QueueOverview {
  /** Unfinished jobs by status (pending, queue, running, waitingApproval, approved). */
  jobs: Record<string, number>;
  /** How long the oldest pending job has waited, in seconds; 0 when none waits. */
  oldestPendingSeconds: number;
  /** Executors seen within the last `aliveMs`. */
  executorsAlive: number;
}

/**
 * Who runs jobs and what waits for them, across every process of the store: each executor notes
 * itself while it runs, and an operator's metrics read how many are alive beside the jobs waiting.
 */
export class RunOverview {
  constructor(
    private readonly work: ServiceWork,
    private readonly records: RunRecords,
  ) {}

  private get jobs(): string {
    return this.records.job.table;
  }

  /** Notes that `executor` runs (at most `runs` jobs at once), now; old notes of executors long gone are removed. */
  async seen(executor: string, runs: number, startedAt: string): Promise<void> {
    const now = new Date().toISOString();
    await this.work.db
      .insertInto(executorTable)
      .values({ id: executor, runs, started_date: startedAt, seen_date: now })
      .onConflict((conflict) => conflict.column('id').doUpdateSet({ seen_date: now }))
      .execute();
    const longAgo = new Date(Date.now() - 24 * 3600_000).toISOString();
    await this.work.db.deleteFrom(executorTable).where('seen_date', '<', longAgo).execute();
  }

  /** Removes an executor that stops from those running. */
  async left(executor: string): Promise<void> {
    await this.work.db.deleteFrom(executorTable).where('id', '=', executor).execute();
  }

  /** Unfinished jobs by status, the oldest pending one's wait, and the executors seen within `aliveMs`. */
  async overview(aliveMs: number): Promise<QueueOverview> {
    const { db } = this.work;
    const counts = await db
      .selectFrom(this.jobs)
      .select('status')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('status', 'in', [...unfinishedStatuses])
      .groupBy('status')
      .execute();
    const jobs: Record<string, number> = Object.fromEntries(unfinishedStatuses.map((status) => [status, 0]));
    for (const row of counts) jobs[String(row.status)] = Number(row.n);
    const oldest = await db
      .selectFrom(this.jobs)
      .select('created_date')
      .where('status', '=', claimable.fresh)
      .orderBy('created_date')
      .limit(1)
      .executeTakeFirst();
    const oldestPendingSeconds = oldest === undefined ? 0 : Math.max(0, (Date.now() - Date.parse(String(oldest.created_date))) / 1000);
    const alive = await db
      .selectFrom(executorTable)
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('seen_date', '>=', new Date(Date.now() - aliveMs).toISOString())
      .executeTakeFirst();
    return { jobs, oldestPendingSeconds, executorsAlive: Number(alive?.n ?? 0) };
  }
}

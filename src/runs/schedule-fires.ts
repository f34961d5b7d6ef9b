import type { ServiceWork } from '../engine/index.js';
import { ApiError } from '../errors.js';
import { isTrue, type Row } from '../model/index.js';
import type { RunRecords } from './run-records.js';

const fireTable = 'schedule_fire';

/** When a cron expression fires next after a time; undefined when it never does again. */
export type NextFire = (cron: string, after: Date) => Date | undefined;

/** A schedule that fired: the job it made. */
export interface Fired {
  scheduleId: string;
  jobId: string;
}

/**
 * Workspace schedules firing: each schedule's next firing is kept beside it (computed from its cron
 * when it is new or its cron changed, from then on: a schedule never fires for times before it was
 * seen), and a firing that is due is taken by one conditional update of that time, so that of all
 * the processes looking, one makes the job. A disabled schedule, or one without a template, does
 * not fire; its time is kept moving so it does not fire for missed times once enabled.
 */
export class ScheduleFires {
  constructor(
    private readonly work: ServiceWork,
    private readonly records: RunRecords,
    private readonly next: NextFire,
    /** The least time between two firings of one schedule. */
    private readonly minIntervalMs: number,
  ) {}

  /** Fires every schedule that is due at `now`: answers the jobs made. */
  async fireDue(now: Date): Promise<Fired[]> {
    await this.track(now);
    const schedule = this.records.schedule.table;
    const due = await this.work.db
      .selectFrom(`${fireTable} as f`)
      .innerJoin(`${schedule} as s`, 's.id', 'f.schedule_id')
      .innerJoin(`${this.records.workspace.table} as w`, 'w.id', 's.workspace_id')
      .select(['s.id', 's.cron', 's.enabled', 's.template_reference', 's.workspace_id', 'w.organization_id', 'w.deleted', 'f.next_fire'])
      .where('f.next_fire', '<=', now.toISOString())
      .limit(100)
      .execute();
    const fired: Fired[] = [];
    for (const row of due) {
      const jobId = await this.fire(row, now);
      if (jobId !== undefined) fired.push({ scheduleId: String(row.id), jobId });
    }
    return fired;
  }

  /** Computes the next firing of schedules seen for the first time, or whose cron changed. */
  private async track(now: Date): Promise<void> {
    const schedule = this.records.schedule.table;
    const untracked = await this.work.db
      .selectFrom(`${schedule} as s`)
      .innerJoin(`${this.records.workspace.table} as w`, 'w.id', 's.workspace_id')
      .leftJoin(`${fireTable} as f`, 'f.schedule_id', 's.id')
      .select(['s.id', 's.cron', 's.firing', 'w.organization_id', 'f.cron as tracked'])
      .where((eb) => eb.or([eb('f.schedule_id', 'is', null), eb('f.cron', '<>', eb.ref('s.cron'))]))
      .limit(500)
      .execute();
    for (const row of untracked) {
      const next = this.nextAfter(String(row.cron), now);
      const values = { cron: String(row.cron), next_fire: next };
      await this.work.transaction(async (tx) => {
        // The next firing is the schedule's own bookkeeping, not a change anyone made: the trail leaves it out.
        await tx.db
          .insertInto(fireTable)
          .values({ schedule_id: row.id, ...values })
          .onConflict((conflict) => conflict.column('schedule_id').doUpdateSet(values))
          .execute();
        if (isTrue(row.firing)) return;
        // Clients read `firing` to know that Stratum starts the schedule's runs (it is false until then).
        await tx.records(String(row.organization_id)).set(this.records.schedule, String(row.id), { firing: true });
      });
    }
  }

  /**
   * Makes the schedule's job and moves its next firing, in one transaction; a job refused for the
   * caps (its workspace's or organization's queue is full) is skipped, and the time moves on alone.
   */
  private async fire(row: Row, now: Date): Promise<string | undefined> {
    try {
      return await this.fireWith(row, now, true);
    } catch (error) {
      if (error instanceof ApiError && error.status === 429) return this.fireWith(row, now, false);
      throw error;
    }
  }

  private fireWith(row: Row, now: Date, makeJob: boolean): Promise<string | undefined> {
    return this.work.transaction(async (tx) => {
      const taken = await tx.db
        .updateTable(fireTable)
        // The next firing no sooner than the least interval: a cron of every second makes a job a minute.
        .set({ next_fire: this.nextAfter(String(row.cron), new Date(now.getTime() + this.minIntervalMs - 1)) })
        .where('schedule_id', '=', row.id)
        .where('next_fire', '=', row.next_fire)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1 || !makeJob) return undefined;
      const template = typeof row.template_reference === 'string' && row.template_reference !== '' ? row.template_reference : undefined;
      if (!isTrue(row.enabled) || template === undefined || isTrue(row.deleted)) return undefined;
      const organizationId = String(row.organization_id);
      // The job starts as any does (its flow kept, its steps made), through the job's own create hook.
      return tx
        .records(organizationId)
        .insert(
          this.records.job,
          organizationId,
          { templateReference: template, via: 'Schedule' },
          { workspace: String(row.workspace_id) },
        );
    });
  }

  /** The next firing as stored: null when the expression never fires again (or cannot be read), which stops it. */
  private nextAfter(cron: string, after: Date): string | null {
    try {
      return this.next(cron, after)?.toISOString() ?? null;
    } catch {
      return null;
    }
  }
}

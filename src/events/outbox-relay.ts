import { sql } from 'kysely';
import { outboxTable } from '../engine/index.js';
import type { Store } from '../store/database.js';
import { handle, readEvent, type EventHandlers } from '../model/index.js';

export interface RelaySettings {
  /** How long a relay holds the rows it takes before another may take them again: longer than delivering them takes. */
  leaseMs: number;
  /** How often rows left by a relay that died (their lease lapsed) are looked for. */
  sweepMs: number;
  /** The most rows one claim takes. */
  batchSize: number;
  /** The most passes at once, so a slow notification receiver holds up only the events of its own pass. */
  passes: number;
  /** The longest a row whose delivery failed waits before it is tried again; the wait doubles up to it. */
  maxRetryMs: number;
}

/** A row the relay took, as it reads it. */
interface ClaimedRow {
  id: string;
  topic: string;
  payload: string;
  attempts: number;
}

/**
 * Delivers the events of the outbox once their writes have committed, at least once each: it takes
 * rows nobody holds (never taken, or whose taker's lease lapsed: a process that died between commit
 * and delivery), hands each event to its handler in the order of their ids, and deletes the row of
 * each one delivered. A failed one stays, and is tried again later. `kick` runs a pass at once
 * (after a commit that emitted events); `start` runs one for what earlier processes left, and
 * another every `sweepMs`. On PostgreSQL every replica relays: a claim passes over the rows another
 * is claiming, so no two deliver a row at once while its lease holds.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running = 0;
  private kickedWhileBusy = false;
  private stopped = false;
  private readonly settled: (() => void)[] = [];

  constructor(
    private readonly store: Pick<Store, 'db' | 'dialect'>,
    private readonly handlers: EventHandlers,
    private readonly warn: (details: Record<string, unknown>, what: string) => void,
    private readonly settings: RelaySettings,
  ) {}

  start(): void {
    if (this.stopped || this.timer !== undefined) return;
    this.kick();
    // The sweep alone keeps no process alive: one that fails to start still exits.
    this.timer = setInterval(() => this.kick(), this.settings.sweepMs).unref();
  }

  /** Delivers the rows nobody holds, in a pass of its own unless as many run as may; then once one ends. */
  kick(): void {
    if (this.stopped) return;
    if (this.running >= this.settings.passes) {
      this.kickedWhileBusy = true;
      return;
    }
    this.running++;
    void this.pass().finally(() => {
      this.running--;
      if (this.kickedWhileBusy && !this.stopped) {
        this.kickedWhileBusy = false;
        this.kick();
      } else if (this.running === 0) for (const done of this.settled.splice(0)) done();
    });
  }

  /**
   * Stops at shutdown, once nothing writes any more: the passes in flight finish, and a last one
   * delivers what was committed since. What it cannot deliver stays for the next start.
   */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.stopped = true;
    if (this.running > 0) await new Promise<void>((resolve) => this.settled.push(resolve));
    await this.pass();
  }

  /** Claims and delivers rows until none is left free, batch by batch. */
  private async pass(): Promise<void> {
    try {
      for (;;) {
        const rows = await this.claim();
        if (rows.length === 0) return;
        await this.deliver(rows);
        if (rows.length < this.settings.batchSize) return;
      }
    } catch (error) {
      // The store is out of reach: the rows stay, for the next kick or sweep.
      this.warn({ err: error }, 'the outbox could not be read; its events are delivered once it can');
    }
  }

  /**
   * Takes up to a batch of the rows nobody holds, oldest first, for a lease. On PostgreSQL the rows
   * another replica is claiming are passed over rather than waited for (SKIP LOCKED), and a row
   * claimed meanwhile is checked again and left out; on SQLite one process relays.
   */
  private async claim(): Promise<ClaimedRow[]> {
    const { db, dialect } = this.store;
    const now = Date.now();
    const free = db
      .selectFrom(outboxTable)
      .select('id')
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', new Date(now).toISOString())]))
      .orderBy('id')
      .limit(this.settings.batchSize);
    const rows = await db
      .updateTable(outboxTable)
      .set({ claimed_until: new Date(now + this.settings.leaseMs).toISOString(), attempts: sql`attempts + 1` })
      .where('id', 'in', dialect === 'postgres' ? free.forUpdate().skipLocked() : free)
      .returning(['id', 'topic', 'payload', 'attempts'])
      .execute();
    return rows
      .map((row) => ({ id: String(row.id), topic: String(row.topic), payload: String(row.payload), attempts: Number(row.attempts) }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /**
   * Hands each row's event to its handler, all started in the order of their ids (so a handler that
   * sends on at once, as the live channel does, sends in that order), then deletes the rows
   * delivered, and holds back the others for a while that doubles with each attempt.
   */
  private async deliver(rows: readonly ClaimedRow[]): Promise<void> {
    const outcomes = await Promise.all(rows.map((row) => this.deliverOne(row)));
    const delivered = rows.filter((_, index) => outcomes[index]).map((row) => row.id);
    const { db } = this.store;
    if (delivered.length > 0) await db.deleteFrom(outboxTable).where('id', 'in', delivered).execute();
    for (const row of rows.filter((_, index) => !outcomes[index])) {
      const wait = Math.min(this.settings.sweepMs * 2 ** row.attempts, this.settings.maxRetryMs);
      await db
        .updateTable(outboxTable)
        .set({ claimed_until: new Date(Date.now() + wait).toISOString() })
        .where('id', '=', row.id)
        .execute();
    }
  }

  private async deliverOne(row: ClaimedRow): Promise<boolean> {
    const event = readEvent(row.topic, row.payload);
    if (event === undefined) {
      // Written by a version that knows an event this one does not: kept for one that does.
      this.warn({ event: row.id, topic: row.topic, attempts: row.attempts }, 'an outbox event this version cannot read is left in place');
      return false;
    }
    try {
      await handle(this.handlers, event);
      return true;
    } catch (error) {
      this.warn(
        { err: error, event: row.id, topic: row.topic, attempts: row.attempts },
        'an event was not delivered; it is tried again later',
      );
      return false;
    }
  }
}

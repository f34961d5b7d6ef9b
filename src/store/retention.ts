import { sql } from 'kysely';
import type { Store } from './database.js';
import { firstIdAt } from './record-id.js';

/** Rows deleted by one statement: short enough that a request waiting behind it does not notice. */
export const pruneBatch = 1000;

/** Rows older than a number of days, pruned from a table whose ids lead with their time (UUIDv7). */
export interface Retention {
  table: string;
  /** The column of each row's time, as ISO 8601 UTC text. */
  timeColumn: string;
  days: number;
  intervalMs: number;
}

/**
 * Deletes, every `intervalMs` and once shortly after start, the rows of `table` older than the
 * retention, a bounded batch per statement with the event loop free between two, so a large backlog
 * never holds the database or the requests. The id bound makes each batch a range of the primary
 * key; the time column keeps a row whose id and time disagree. Returns what stops it.
 */
export function keepRecent(
  store: Pick<Store, 'db'>,
  retention: Retention,
  report: { pruned: (rows: number) => void; failed: (message: string) => void },
): () => Promise<void> {
  let running: Promise<void> | undefined;
  let stopped = false;
  const prune = async () => {
    const cutoff = new Date(Date.now() - retention.days * 86_400_000);
    const { table, timeColumn } = retention;
    let total = 0;
    for (;;) {
      if (stopped) break;
      const oldest = store.db
        .selectFrom(table)
        .select('id')
        .where('id', '<', firstIdAt(cutoff))
        .where(sql.ref(timeColumn), '<', cutoff.toISOString())
        .orderBy('id')
        .limit(pruneBatch);
      const result = await store.db.deleteFrom(table).where('id', 'in', oldest).executeTakeFirst();
      const deleted = Number(result.numDeletedRows);
      total += deleted;
      if (deleted < pruneBatch) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (total > 0) report.pruned(total);
  };
  const run = () => {
    running ??= prune()
      .catch((error: unknown) => report.failed(error instanceof Error ? error.message : String(error)))
      .finally(() => (running = undefined));
  };
  const first = setTimeout(run, Math.min(1000, retention.intervalMs));
  const every = setInterval(run, retention.intervalMs);
  first.unref();
  every.unref();
  return async () => {
    stopped = true;
    clearTimeout(first);
    clearInterval(every);
    await running;
  };
}

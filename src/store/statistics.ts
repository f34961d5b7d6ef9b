import { Worker } from 'node:worker_threads';
import type Sqlite from 'better-sqlite3';

/** The first run waits until the service has started and served its first requests. */
const firstRunDelayMs = 60_000;

/**
 * Keeps the embedded store's planner statistics current. Without them SQLite cannot tell how many
 * rows a key prefix selects, and sorts a quarter of a million-item collection where reading its
 * update-time index would stop after fifty rows. PostgreSQL's autovacuum does this by itself.
 * Returns what stops it.
 */
export function keepStatistics(
  handle: Sqlite.Database,
  file: string,
  intervalMs: number,
  onFailure: (message: string) => void,
): () => Promise<void> {
  let worker: Worker | undefined;
  const run = () => {
    if (worker !== undefined) return;
    worker = new Worker(new URL('./statistics-worker.js', import.meta.url), { workerData: { file } });
    worker.once('message', (result: { ok: boolean; message?: string }) => {
      // Makes this connection read the new statistics, and replan its prepared statements.
      if (result.ok) handle.exec('ANALYZE sqlite_schema');
      else onFailure(result.message ?? 'unknown error');
    });
    worker.once('exit', () => (worker = undefined));
  };
  const first = setTimeout(run, Math.min(firstRunDelayMs, intervalMs));
  const every = setInterval(run, intervalMs);
  first.unref();
  every.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(every);
    await worker?.terminate();
  };
}

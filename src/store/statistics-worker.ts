import { parentPort, workerData } from 'node:worker_threads';
import Sqlite from 'better-sqlite3';

/**
 * Gathers the query planner's statistics of the embedded store on a connection of its own, off the
 * event loop: a full ANALYZE reads every index, which takes seconds on a million rows.
 */
const { file } = workerData as { file: string };
const db = new Sqlite(file);
try {
  // ANALYZE holds the write lock while it reads; it waits its turn behind a writer, as writers wait
  // behind it (their busy timeout covers an ANALYZE of a few million rows).
  db.pragma('busy_timeout = 60000');
  db.exec('ANALYZE');
  parentPort?.postMessage({ ok: true });
} catch (error) {
  parentPort?.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
} finally {
  db.close();
}

import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { makeDataFolder } from './data-folder.js';

/**
 * An exclusive OS lock on the embedded data folder.
 *
 * SQLite's own file locks are POSIX advisory locks that the kernel drops when the holder dies, so a
 * restart after kill -9 just works, unlike a pid file or lock directory that a crash leaves behind.
 * Holding an exclusive transaction open on a small dedicated file keeps the lock for the life of
 * the process; the pid beside it only serves the error message.
 */
export class DataFolderLock {
  private constructor(
    private readonly handle: Sqlite.Database,
    private readonly pidFile: string,
  ) {}

  static acquire(dataDir: string): DataFolderLock {
    makeDataFolder(dataDir);
    const lockFile = path.join(dataDir, 'stratum.lock');
    const pidFile = path.join(dataDir, 'stratum.pid');
    const handle = new Sqlite(lockFile, { timeout: 0 });
    try {
      handle.pragma('locking_mode = EXCLUSIVE');
      handle.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      handle.close();
      if (isBusy(error)) {
        throw new DataFolderLockedError(dataDir, readPid(pidFile));
      }
      throw error;
    }
    fs.writeFileSync(pidFile, `${process.pid}\n`);
    return new DataFolderLock(handle, pidFile);
  }

  release(): void {
    if (!this.handle.open) return;
    fs.rmSync(this.pidFile, { force: true });
    this.handle.exec('ROLLBACK');
    this.handle.close();
  }
}

export class DataFolderLockedError extends Error {
  constructor(dataDir: string, holderPid: string | undefined) {
    super(
      `the data folder ${dataDir} is in use by another Stratum process` +
        (holderPid === undefined ? '' : ` (pid ${holderPid})`) +
        '; stop it or set STRATUM_DATA_DIR to another folder',
    );
  }
}

function isBusy(error: unknown): boolean {
  return error instanceof Sqlite.SqliteError && error.code.startsWith('SQLITE_BUSY');
}

function readPid(pidFile: string): string | undefined {
  try {
    return fs.readFileSync(pidFile, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

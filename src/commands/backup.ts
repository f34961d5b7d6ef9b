import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { loadConfig, type Config } from '../config.js';
import { redactDatabaseUrl } from '../store/connection-failures.js';
import { embeddedDatabaseFile } from '../store/database.js';
import { missingStore } from './console-store.js';
import { CommandFailure } from './exit-codes.js';

/**
 * `stratum backup FILE`: a consistent copy of the embedded database, taken with SQLite's online
 * backup API while the server runs. The copy is written beside FILE under another name and renamed
 * once complete and checked, so FILE is either absent or a whole backup.
 */
export async function backup(file: string): Promise<void> {
  const config = loadConfig();
  if (config.databaseUrl !== undefined) throw new CommandFailure(postgresAdvice(config.databaseUrl));
  const target = path.resolve(file);
  const source = embeddedDatabaseFile(config.dataDir);
  if (!fs.existsSync(source)) throw missingStore(config, `there is no database (stratum.db) in ${config.dataDir} to back up`);
  if (fs.existsSync(target)) throw new CommandFailure(`${target} exists already: name a new file, so that no backup is overwritten`);
  const partial = `${target}.partial-${process.pid}`;
  // The copy holds the sealed secrets and the token records: readable by its owner only, from its
  // first byte (SQLite takes an empty file as an empty database to copy into).
  fs.closeSync(fs.openSync(partial, 'wx', 0o600));
  // Read-only, beside the server: a read transaction in WAL mode does not hold up its writes.
  const database = new Sqlite(source, { readonly: true, fileMustExist: true });
  try {
    database.pragma('busy_timeout = 5000');
    // All remaining pages in one step after the first: SQLite restarts a backup whose source
    // another connection changed between steps, which a busy server could do forever.
    await database.backup(partial, { progress: ({ totalPages }) => totalPages });
    const summary = verify(partial);
    fsyncFile(partial);
    fs.renameSync(partial, target);
    fsyncFile(path.dirname(target));
    const size = fs.statSync(target).size;
    process.stdout.write(
      `backed up ${source} to ${target} (${Math.ceil(size / 1024)} KiB, ${summary.migrations} migrations, ${summary.tokens} API tokens)\n` +
        keyReminder(config),
    );
  } finally {
    database.close();
    fs.rmSync(partial, { force: true });
  }
}

/** Checks the copy opens as a sound database of this service, and says what it holds. */
function verify(file: string): { migrations: number; tokens: number } {
  const copy = new Sqlite(file, { fileMustExist: true });
  try {
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new CommandFailure(`the copy failed SQLite's quick_check (${String(check)}); nothing was written`);
    // A backup restores in any journal mode; the server switches it to WAL at start.
    copy.pragma('journal_mode = DELETE');
    const count = (table: string) => (copy.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    return { migrations: count('stratum_migration'), tokens: count('api_token') };
  } finally {
    copy.close();
  }
}

function fsyncFile(file: string): void {
  const handle = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
}

function keyReminder(config: Config): string {
  const keys = [
    config.encryptionKey === undefined ? path.join(config.dataDir, 'encryption.key') : 'STRATUM_ENCRYPTION_KEY',
    config.tokenKey === undefined ? path.join(config.dataDir, 'token.key') : 'STRATUM_TOKEN_KEY',
  ];
  return (
    `The copy holds no keys. Its secrets open only with the encryption key, and its tokens verify only\n` +
    `with the signing key: keep ${keys.join(' and ')} safe, apart from the backup, to restore it.\n`
  );
}

function postgresAdvice(databaseUrl: string): string {
  return [
    `this configuration uses PostgreSQL (DATABASE_URL=${redactDatabaseUrl(databaseUrl)}): \`stratum backup\` copies the embedded store only.`,
    'Back up PostgreSQL with its own tools, which take a consistent snapshot while the servers run:',
    '  pg_dump --format=custom --file=stratum.dump "$DATABASE_URL"',
    'and restore into a new, empty database with:',
    '  pg_restore --no-owner --dbname="$NEW_DATABASE_URL" stratum.dump',
    'Keep STRATUM_ENCRYPTION_KEY with the dump, apart from it: the secrets and the signing key in it are sealed with that key.',
  ].join('\n');
}

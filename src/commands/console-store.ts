import fs from 'node:fs';
import type { Config } from '../config.js';
import { redactDatabaseUrl, MissingStoreError } from '../store/connection-failures.js';
import { connectStore, type Store, type StoreAccess } from '../store/database.js';
import { migrateToLatest, migrationStatus, NewerDatabaseError } from '../store/migrate.js';
import { CommandFailure } from './exit-codes.js';

/**
 * How the console commands reach the store. Unlike the server, they never create a data folder or
 * a key on their own: a typo in STRATUM_DATA_DIR, or a command run from another directory than the
 * server's, would otherwise mint tokens with a new key that the server refuses. `--init` asks for
 * a new store explicitly.
 */

/** Where the configured store is, as an operator recognises it. */
export function storeLocation(config: Config): string {
  return config.databaseUrl === undefined
    ? `the data folder ${config.dataDir} (STRATUM_DATA_DIR)`
    : `the database at DATABASE_URL=${redactDatabaseUrl(config.databaseUrl)}`;
}

const initHint = (config: Config) =>
  `point STRATUM_DATA_DIR at the server's data folder (relative paths start at ${process.cwd()}), or pass --init to create a new store at ${config.dataDir}`;

/** Refuses an embedded data folder that does not exist, unless `init` asks to create it. */
export function requireDataFolder(config: Config, init: boolean): void {
  if (config.databaseUrl !== undefined || init || fs.existsSync(config.dataDir)) return;
  throw new CommandFailure(`there is no data folder ${config.dataDir}: ${initHint(config)}`);
}

/** The embedded store's folder is missing or has no database: says so, with what to do. */
export function missingStore(config: Config, what: string): CommandFailure {
  return new CommandFailure(`${what}: ${initHint(config)}`);
}

/** Opens the store for a console command: see StoreAccess for how it shares the embedded one. */
export async function openConsoleStore(config: Config, embedded: StoreAccess['embedded'], init = false): Promise<Store> {
  try {
    return await connectStore(config, { embedded, create: init });
  } catch (error) {
    if (error instanceof MissingStoreError) throw missingStore(config, error.message);
    throw error;
  }
}

/**
 * Refuses a database this version cannot work on: one no server has set up yet (unless `init`
 * migrates it), one with migrations pending, or one a newer version migrated.
 */
export async function requireMigrated(store: Store, config: Config, init: boolean): Promise<void> {
  const status = await migrationStatus(store.db, store.dialect);
  if (status.unknown.length > 0) throw new CommandFailure(`${storeLocation(config)}: ${new NewerDatabaseError(status.unknown).message}`);
  if (status.pending.length === 0) return;
  if (init) {
    await migrateToLatest(store.db, store.dialect);
    return;
  }
  throw new CommandFailure(
    status.applied.length === 0
      ? `${storeLocation(config)} holds no Stratum store yet: start the server once, run \`stratum migrate\`, or pass --init`
      : `${storeLocation(config)} has ${status.pending.length} migration(s) pending (${status.pending.join(', ')}): run \`stratum migrate\` first`,
  );
}

import { embeddedSigningKey } from '../auth/signing-key.js';
import { loadConfig } from '../config.js';
import { openSecretCipher } from '../secrets/encryption-key.js';
import { MissingStoreError } from '../store/connection-failures.js';
import { connectStore } from '../store/database.js';
import { migrateToLatest, migrationStatus, NewerDatabaseError } from '../store/migrate.js';
import { openConsoleStore, requireDataFolder, storeLocation } from './console-store.js';
import { CommandFailure, ExitCode } from './exit-codes.js';

/**
 * `stratum migrate`: applies pending migrations and exits, so a deploy pipeline migrates once
 * before the new servers start (each server would otherwise do it at start, one at a time, under
 * the migration lock). `--check` applies nothing and exits 3 while some are pending.
 */
export async function migrate(options: { check?: boolean; init?: boolean }): Promise<void> {
  const config = loadConfig();
  const where = storeLocation(config);
  if (options.check === true) {
    let store;
    try {
      store = await connectStore(config, { embedded: 'readonly', create: false });
    } catch (error) {
      if (!(error instanceof MissingStoreError)) throw error;
      throw new CommandFailure(`${error.message}, so every migration is pending`, ExitCode.pending);
    }
    try {
      const status = await migrationStatus(store.db, store.dialect);
      if (status.unknown.length > 0) throw new CommandFailure(`${where}: ${new NewerDatabaseError(status.unknown).message}`);
      if (status.pending.length > 0) {
        throw new CommandFailure(
          `${where}: ${status.pending.length} migration(s) pending: ${status.pending.join(', ')} (\`stratum migrate\` applies them)`,
          ExitCode.pending,
        );
      }
      process.stdout.write(`${where} is up to date (${status.applied.length} migrations applied)\n`);
    } finally {
      await store.close();
    }
    return;
  }
  requireDataFolder(config, options.init === true);
  // The embedded store's folder lock refuses this while a server holds the data folder.
  const store = await openConsoleStore(config, 'exclusive', options.init === true);
  try {
    const before = await migrationStatus(store.db, store.dialect);
    if (before.unknown.length > 0) throw new CommandFailure(`${where}: ${new NewerDatabaseError(before.unknown).message}`);
    const applied = await migrateToLatest(store.db, store.dialect);
    // A new embedded store is made whole, with the keys a server would generate at its first start,
    // so that `stratum check` finds nothing missing and `stratum token` can sign at once.
    if (options.init === true && config.databaseUrl === undefined) {
      // The encryption key first: a restored database without its key is refused before any key is made.
      await openSecretCipher(config, store);
      embeddedSigningKey(config);
    }
    process.stdout.write(
      applied.length === 0
        ? `${where} is up to date (${before.applied.length} migrations applied)\n`
        : `applied ${applied.length} migration(s) to ${where}: ${applied.join(', ')}\n`,
    );
  } finally {
    await store.close();
  }
}

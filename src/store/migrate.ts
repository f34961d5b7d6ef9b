import { Migrator, type Kysely, type Migration } from 'kysely';
import type { Database, Dialect } from './database.js';
import { foundation } from './migrations/0001-foundation.js';
import { configurationRecords } from './migrations/0002-configuration-records.js';
import { apiTokens } from './migrations/0003-api-tokens.js';

/** The one migration history of both stores, in order; a migration, once released, never changes. */
function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001-foundation': foundation(dialect),
    '0002-configuration-records': configurationRecords(dialect),
    '0003-api-tokens': apiTokens(dialect),
  };
}

export async function migrateToLatest(db: Kysely<Database>, dialect: Dialect): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations(dialect)) },
    migrationTableName: 'stratum_migration',
    migrationLockTableName: 'stratum_migration_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`database migration ${failed} failed: ${error instanceof Error ? error.message : 'unknown error'}`, { cause: error });
  }
}

import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import type { Database } from '../model/index.js';
import type { Dialect } from './dialect.js';
import { foundation } from './migrations/0001-foundation.js';
import { configurationRecords } from './migrations/0002-configuration-records.js';
import { apiTokens } from './migrations/0003-api-tokens.js';
import { tokenLineage } from './migrations/0004-token-lineage.js';
import { terrakubeUiRecords } from './migrations/0005-terrakube-ui-records.js';
import { listIndexes } from './migrations/0006-list-indexes.js';
import { tokenAudit } from './migrations/0007-token-audit.js';

/** The one migration history of both stores, in order; a migration, once released, never changes. */
function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001-foundation': foundation(dialect),
    '0002-configuration-records': configurationRecords(dialect),
    '0003-api-tokens': apiTokens(dialect),
    '0004-token-lineage': tokenLineage(dialect),
    '0005-terrakube-ui-records': terrakubeUiRecords(dialect),
    '0006-list-indexes': listIndexes(),
    '0007-token-audit': tokenAudit(dialect),
  };
}

const migrationTableName = 'stratum_migration';

function migrator(db: Kysely<Database>, dialect: Dialect): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations(dialect)) },
    migrationTableName,
    migrationLockTableName: 'stratum_migration_lock',
  });
}

/** Applies every pending migration and returns the names of those it applied. */
export async function migrateToLatest(db: Kysely<Database>, dialect: Dialect): Promise<string[]> {
  const { error, results } = await migrator(db, dialect).migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : 'unknown error';
    throw new Error(
      failed === undefined ? `the database migrations could not run: ${reason}` : `database migration ${failed} failed: ${reason}`,
      {
        cause: error,
      },
    );
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Where a database stands against this version's migrations. */
export interface MigrationStatus {
  applied: string[];
  pending: string[];
  /** Applied to the database but unknown to this version: a newer version migrated it. */
  unknown: string[];
}

/** Reads which migrations the database holds, changing nothing (a fresh database holds none). */
export async function migrationStatus(db: Kysely<Database>, dialect: Dialect): Promise<MigrationStatus> {
  const known = Object.keys(migrations(dialect));
  let applied: string[];
  try {
    const { rows } = await sql<{ name: string }>`select name from ${sql.table(migrationTableName)} order by name`.execute(db);
    applied = rows.map((row) => row.name);
  } catch (error) {
    if (await hasTable(db, dialect, migrationTableName)) throw error;
    applied = [];
  }
  return {
    applied: applied.filter((name) => known.includes(name)),
    pending: known.filter((name) => !applied.includes(name)),
    unknown: applied.filter((name) => !known.includes(name)),
  };
}

async function hasTable(db: Kysely<Database>, dialect: Dialect, table: string): Promise<boolean> {
  const query =
    dialect === 'sqlite'
      ? sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table' and name = ${table}`
      : sql<{
          n: number;
        }>`select count(*)::int as n from information_schema.tables where table_schema = current_schema() and table_name = ${table}`;
  const { rows } = await query.execute(db);
  return (rows[0]?.n ?? 0) > 0;
}

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
import { teamAccess } from './migrations/0008-team-access.js';
import { schedulesActionsFederated } from './migrations/0009-schedules-actions-federated.js';
import { registry } from './migrations/0010-registry.js';
import { notifications } from './migrations/0011-notifications.js';
import { webhooks } from './migrations/0012-webhooks.js';
import { actionIcons } from './migrations/0013-action-icons.js';
import { notificationTemplates } from './migrations/0014-notification-templates.js';
import { jobs } from './migrations/0015-jobs.js';
import { workspaceState } from './migrations/0016-workspace-state.js';
import { jobRuns } from './migrations/0017-job-runs.js';
import { planViews } from './migrations/0018-plan-views.js';
import { executors } from './migrations/0019-executors.js';
import { auditTrail } from './migrations/0020-audit-trail.js';
import { jobFlows } from './migrations/0021-job-flows.js';
import { organizationTurns } from './migrations/0022-organization-turns.js';
import { agentTokens } from './migrations/0023-agent-tokens.js';

/** The one migration history of both stores, in order; a migration, once released, never changes. */
const history: readonly (readonly [name: string, build: (dialect: Dialect) => Migration])[] = [
  ['0001-foundation', foundation],
  ['0002-configuration-records', configurationRecords],
  ['0003-api-tokens', apiTokens],
  ['0004-token-lineage', tokenLineage],
  ['0005-terrakube-ui-records', terrakubeUiRecords],
  ['0006-list-indexes', () => listIndexes()],
  ['0007-token-audit', tokenAudit],
  ['0008-team-access', teamAccess],
  ['0009-schedules-actions-federated', schedulesActionsFederated],
  ['0010-registry', registry],
  ['0011-notifications', notifications],
  ['0012-webhooks', webhooks],
  ['0013-action-icons', () => actionIcons()],
  ['0014-notification-templates', notificationTemplates],
  ['0015-jobs', jobs],
  ['0016-workspace-state', workspaceState],
  ['0017-job-runs', jobRuns],
  ['0018-plan-views', planViews],
  ['0019-executors', executors],
  ['0020-audit-trail', auditTrail],
  ['0021-job-flows', jobFlows],
  ['0022-organization-turns', organizationTurns],
  ['0023-agent-tokens', agentTokens],
];

function migrations(dialect: Dialect): Record<string, Migration> {
  return Object.fromEntries(history.map(([name, build]) => [name, build(dialect)]));
}

/** The names of this version's migrations, in order. */
export const migrationNames: readonly string[] = history.map(([name]) => name);

/** The schema this version brings a database to: its last migration's name. */
export const schemaVersion: string = migrationNames.at(-1) ?? 'none';

/** A database this version must not touch: a newer version migrated it. */
export class NewerDatabaseError extends Error {
  constructor(readonly unknown: readonly string[]) {
    super(
      `the database was migrated by a newer Stratum (${unknown.join(', ')}) than this one (schema ${schemaVersion}): ` +
        'run that version or a later one; to go back to this one, restore a backup taken before the upgrade',
    );
  }
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

/**
 * Applies every pending migration and returns the names of those it applied. A database a newer
 * version migrated is refused before anything runs (NewerDatabaseError).
 */
export async function migrateToLatest(db: Kysely<Database>, dialect: Dialect): Promise<string[]> {
  const { unknown } = await migrationStatus(db, dialect);
  if (unknown.length > 0) throw new NewerDatabaseError(unknown);
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
  const known = migrationNames;
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

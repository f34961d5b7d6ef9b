import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes, withAuditColumns } from './column-types.js';

/**
 * Terraform state served by the http backend: `history`, one record per state written (Terrakube's
 * fields); `state_version`, the state of each, sealed with the encryption key and kept apart from
 * the record so no read of records ever loads it; `state_lock`, the lock Terraform holds on a
 * workspace's state, with the lock info it sent. All go with their workspace.
 */
export function workspaceState(dialect: Dialect): Migration {
  const { text, timestamp } = columnTypes(dialect);
  const audit = withAuditColumns(dialect);

  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('history')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('workspace_id', text, (c) => c.notNull().references('workspace.id').onDelete('cascade'))
        .addColumn('job_reference', text)
        .addColumn('output', text)
        .addColumn('serial', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('md5', text)
        .addColumn('lineage', text)
        .$call(audit)
        .execute();
      await db.schema.createIndex('history_workspace_created').on('history').columns(['workspace_id', 'created_date', 'id']).execute();
      await db.schema.createIndex('history_workspace_serial').on('history').columns(['workspace_id', 'serial', 'id']).execute();

      await db.schema
        .createTable('state_version')
        .addColumn('id', text, (c) => c.primaryKey().references('history.id').onDelete('cascade'))
        .addColumn('state', text, (c) => c.notNull())
        .addColumn('bytes', 'integer', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('state_lock')
        .addColumn('workspace_id', text, (c) => c.primaryKey().references('workspace.id').onDelete('cascade'))
        .addColumn('lock_id', text, (c) => c.notNull())
        .addColumn('info', text, (c) => c.notNull())
        .addColumn('locked_by', text, (c) => c.notNull())
        .addColumn('created_date', timestamp, (c) => c.notNull())
        .execute();
    },
  };
}

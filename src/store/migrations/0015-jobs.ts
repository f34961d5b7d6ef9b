import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes, flagColumn, withAuditColumns } from './column-types.js';

/**
 * Jobs (runs of a template's flow on a workspace) and their steps, going with their workspace; and
 * the sequences that number records whose ids are whole numbers (jobs), one row per resource.
 */
export function jobs(dialect: Dialect): Migration {
  const { text } = columnTypes(dialect);
  const audit = withAuditColumns(dialect);

  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('record_sequence')
        .addColumn('name', text, (c) => c.primaryKey())
        .addColumn('last_value', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('job')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('organization_id', text, (c) => c.notNull().references('organization.id').onDelete('cascade'))
        .addColumn('workspace_id', text, (c) => c.notNull().references('workspace.id').onDelete('cascade'))
        .addColumn('status', text, (c) => c.notNull().defaultTo('pending'))
        .addColumn('template_reference', text, (c) => c.notNull())
        .addColumn('override_branch', text)
        .addColumn('via', text)
        .addColumn('target_addrs', text)
        .addColumn('replace_addrs', text)
        .$call(flagColumn('refresh', 1))
        .$call(flagColumn('refresh_only', 0))
        .addColumn('comments', text)
        .addColumn('commit_id', text)
        .$call(flagColumn('plan_changes', 1))
        .addColumn('output', text)
        .addColumn('approval_team', text)
        .$call(audit)
        .execute();
      // Lists under the organization, and a workspace's jobs (its newest, for its last status), in creation order.
      await db.schema.createIndex('job_organization_created').on('job').columns(['organization_id', 'created_date', 'id']).execute();
      await db.schema.createIndex('job_workspace_created').on('job').columns(['workspace_id', 'created_date', 'id']).execute();

      await db.schema
        .createTable('step')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('job_id', text, (c) => c.notNull().references('job.id').onDelete('cascade'))
        .addColumn('step_number', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('name', text)
        .addColumn('status', text, (c) => c.notNull().defaultTo('pending'))
        .addColumn('output', text)
        .$call(audit)
        .execute();
      await db.schema.createIndex('step_job_created').on('step').columns(['job_id', 'created_date', 'id']).execute();
    },
  };
}

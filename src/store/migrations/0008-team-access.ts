import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes, flagColumn, withAuditColumns } from './column-types.js';

/**
 * Team access per workspace and per project (Terrakube's `access` and `project_access`): a
 * directory group's role or flags on one workspace, or on the workspaces of one project, going
 * with it when it is deleted. One grant per group and workspace (or project).
 */
export function teamAccess(dialect: Dialect): Migration {
  const { text } = columnTypes(dialect);
  const audit = withAuditColumns(dialect);

  return {
    async up(db: Kysely<unknown>) {
      for (const [table, parent] of [
        ['access', 'workspace'],
        ['project_access', 'project'],
      ] as const) {
        const parentColumn = `${parent}_id`;
        await db.schema
          .createTable(table)
          .addColumn('id', text, (c) => c.primaryKey())
          .addColumn(parentColumn, text, (c) => c.notNull().references(`${parent}.id`).onDelete('cascade'))
          .addColumn('name', text, (c) => c.notNull())
          .addColumn('role', text)
          .$call(flagColumn('manage_state', 0))
          .$call(flagColumn('manage_workspace', 0))
          .$call(flagColumn('manage_job', 0))
          .$call(flagColumn('plan_job', 0))
          .$call(flagColumn('approve_job', 0))
          .$call(audit)
          .execute();
        // Unique per parent, and how a record's grants are found for a caller's groups.
        await db.schema.createIndex(`${table}_name_unique`).on(table).columns([parentColumn, 'name']).unique().execute();
        // Lists under a parent read in creation order, the id breaking ties.
        await db.schema.createIndex(`${table}_${parent}_created`).on(table).columns([parentColumn, 'created_date', 'id']).execute();
        // Whether a caller outside its teams holds a grant somewhere in an organization, by group name.
        await db.schema.createIndex(`${table}_name`).on(table).columns(['name', parentColumn]).execute();
      }
    },
  };
}

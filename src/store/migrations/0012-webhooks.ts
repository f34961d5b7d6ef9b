import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes, flagColumn, withAuditColumns } from './column-types.js';

/**
 * A workspace's VCS webhook (one at most) and the events it reacts to, going with the workspace
 * and the webhook when they are deleted.
 */
export function webhooks(dialect: Dialect): Migration {
  const { text } = columnTypes(dialect);
  const audit = withAuditColumns(dialect);

  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('webhook')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('workspace_id', text, (c) => c.notNull().references('workspace.id').onDelete('cascade'))
        .addColumn('remote_hook_id', text)
        .$call(flagColumn('migrated_v2', 0))
        .$call(audit)
        .execute();
      // One webhook per workspace, which is also how a workspace's webhook is found.
      await db.schema.createIndex('webhook_workspace_unique').on('webhook').columns(['workspace_id']).unique().execute();
      // Lists under a workspace read in creation order, the id breaking ties.
      await db.schema.createIndex('webhook_workspace_created').on('webhook').columns(['workspace_id', 'created_date', 'id']).execute();

      await db.schema
        .createTable('webhook_event')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('webhook_id', text, (c) => c.notNull().references('webhook.id').onDelete('cascade'))
        .addColumn('event', text, (c) => c.notNull())
        .addColumn('branch', text, (c) => c.notNull())
        .addColumn('path', text, (c) => c.notNull())
        .addColumn('path_type', text, (c) => c.notNull())
        .addColumn('template_id', text)
        .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
        .$call(flagColumn('pr_workflow_enabled', 0))
        .$call(flagColumn('pr_apply_enabled', 0))
        .$call(audit)
        .execute();
      await db.schema
        .createIndex('webhook_event_webhook_created')
        .on('webhook_event')
        .columns(['webhook_id', 'created_date', 'id'])
        .execute();
    },
  };
}

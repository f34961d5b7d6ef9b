import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes, flagColumn, withAuditColumns } from './column-types.js';

/**
 * Notification configurations of organizations (a workspace's own link it, and go with it), their
 * trigger statuses, and the deliveries made to their destinations, a bounded number kept per
 * configuration.
 */
export function notifications(dialect: Dialect): Migration {
  const { text, timestamp } = columnTypes(dialect);
  const audit = withAuditColumns(dialect);

  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('notification_configuration')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('organization_id', text, (c) => c.notNull().references('organization.id').onDelete('cascade'))
        .addColumn('workspace_id', text, (c) => c.references('workspace.id').onDelete('cascade'))
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('description', text)
        .addColumn('channel_type', text, (c) => c.notNull())
        .addColumn('destination_url', text, (c) => c.notNull())
        .addColumn('signing_secret', text)
        .$call(flagColumn('active', 1))
        .addColumn('message_style', text, (c) => c.notNull().defaultTo('DETAILED'))
        .$call(audit)
        .execute();
      await db.schema
        .createIndex('notification_configuration_organization_created')
        .on('notification_configuration')
        .columns(['organization_id', 'created_date', 'id'])
        .execute();
      await db.schema
        .createIndex('notification_configuration_workspace')
        .on('notification_configuration')
        .columns(['workspace_id', 'created_date', 'id'])
        .execute();

      await db.schema
        .createTable('notification_trigger')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('configuration_id', text, (c) => c.notNull().references('notification_configuration.id').onDelete('cascade'))
        .addColumn('job_status', text, (c) => c.notNull())
        .$call(audit)
        .execute();
      await db.schema
        .createIndex('notification_trigger_status_unique')
        .on('notification_trigger')
        .columns(['configuration_id', 'job_status'])
        .unique()
        .execute();
      await db.schema
        .createIndex('notification_trigger_configuration_created')
        .on('notification_trigger')
        .columns(['configuration_id', 'created_date', 'id'])
        .execute();

      // Not a record of the API: written by the delivery mechanism, read through its own routes.
      await db.schema
        .createTable('notification_delivery')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('configuration_id', text, (c) => c.notNull().references('notification_configuration.id').onDelete('cascade'))
        .addColumn('workspace_id', text, (c) => c.references('workspace.id').onDelete('cascade'))
        // The configuration as it was when delivered: its name and channel show beside the answer.
        .addColumn('configuration_name', text, (c) => c.notNull())
        .addColumn('channel_type', text, (c) => c.notNull())
        .addColumn('event', text, (c) => c.notNull())
        .addColumn('job_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('payload', text, (c) => c.notNull())
        .addColumn('status', text, (c) => c.notNull())
        .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('response_status', 'integer')
        .addColumn('response_body', text)
        .addColumn('duration_ms', 'integer')
        .addColumn('last_error', text)
        .addColumn('last_attempt_at', timestamp)
        .addColumn('created_date', timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('notification_delivery_configuration_created')
        .on('notification_delivery')
        .columns(['configuration_id', 'created_date', 'id'])
        .execute();
      await db.schema
        .createIndex('notification_delivery_workspace_created')
        .on('notification_delivery')
        .columns(['workspace_id', 'created_date', 'id'])
        .execute();
    },
  };
}

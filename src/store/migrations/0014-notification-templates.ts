import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes } from './column-types.js';

/**
 * The templates a notification configuration is narrowed to: one row per pair, going with either
 * side when it is deleted. None for a configuration means every template, as before.
 */
export function notificationTemplates(dialect: Dialect): Migration {
  const { text } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('notification_configuration_template')
        .addColumn('configuration_id', text, (c) => c.notNull().references('notification_configuration.id').onDelete('cascade'))
        .addColumn('template_id', text, (c) => c.notNull().references('template.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('notification_configuration_template_pair', ['configuration_id', 'template_id'])
        .execute();
      // A template's deletion finds its pairs through this, not through a scan of every pair.
      await db.schema
        .createIndex('notification_configuration_template_template')
        .on('notification_configuration_template')
        .column('template_id')
        .execute();
    },
  };
}

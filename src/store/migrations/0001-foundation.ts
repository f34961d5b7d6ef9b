import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes, withAuditColumns } from './column-types.js';

/** Organizations, their templates, and the service's own keys. */
export function foundation(dialect: Dialect): Migration {
  const { text, timestamp } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('service_key')
        .addColumn('name', text, (c) => c.primaryKey())
        .addColumn('value', text, (c) => c.notNull())
        .addColumn('created_date', timestamp, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('organization')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('description', text)
        .addColumn('execution_mode', text, (c) => c.notNull())
        .addColumn('icon', text)
        .addColumn('disabled', 'integer', (c) =>
          c
            .notNull()
            .defaultTo(0)
            .check(sql`disabled in (0, 1)`),
        )
        .$call(withAuditColumns(dialect))
        .execute();
      // A soft-deleted organization frees its name.
      await db.schema
        .createIndex('organization_name_unique')
        .on('organization')
        .column('name')
        .unique()
        .where(sql.ref('disabled'), '=', 0)
        .execute();
      await db.schema.createIndex('organization_created').on('organization').columns(['created_date', 'id']).execute();

      await db.schema
        .createTable('template')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('organization_id', text, (c) => c.notNull().references('organization.id').onDelete('cascade'))
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('description', text)
        .addColumn('version', text)
        .addColumn('tcl', text, (c) => c.notNull())
        .$call(withAuditColumns(dialect))
        .execute();
      await db.schema
        .createIndex('template_organization_created')
        .on('template')
        .columns(['organization_id', 'created_date', 'id'])
        .execute();
    },
  };
}

import { sql, type CreateTableBuilder, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes, withAuditColumns } from './column-types.js';

/**
 * Collections and their items and references, workspaces and their variables, VCS connections and
 * teams. Deleting a parent deletes its children through ON DELETE CASCADE; deleting a VCS connection
 * unlinks its workspaces through ON DELETE SET NULL. Secret values are stored sealed.
 */
export function configurationRecords(dialect: Dialect): Migration {
  const { text } = columnTypes(dialect);
  const audit = withAuditColumns(dialect);
  const flag =
    (name: string, fallback: 0 | 1) =>
    <T extends string>(table: CreateTableBuilder<T>) =>
      table.addColumn(name, 'integer', (c) =>
        c
          .notNull()
          .defaultTo(fallback)
          .check(sql`${sql.ref(name)} in (0, 1)`),
      );
  const keyValue = <T extends string>(table: CreateTableBuilder<T>) =>
    table
      .addColumn('key', text, (c) => c.notNull())
      .addColumn('value', text)
      .addColumn('description', text)
      .addColumn('category', text, (c) => c.notNull())
      .$call(flag('sensitive', 0))
      .$call(flag('hcl', 0));

  return {
    async up(db: Kysely<unknown>) {
      const unique = async (table: string, columns: string[]) => {
        await db.schema
          .createIndex(`${table}_${columns.at(-1) ?? ''}_unique`)
          .on(table)
          .columns(columns)
          .unique()
          .execute();
      };
      // Lists under a parent read in creation order, the id breaking ties.
      const listedUnder = async (table: string, parent: string) => {
        await db.schema
          .createIndex(`${table}_${parent}_created`)
          .on(table)
          .columns([`${parent}_id`, 'created_date', 'id'])
          .execute();
      };

      await db.schema
        .createTable('vcs')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('organization_id', text, (c) => c.notNull().references('organization.id').onDelete('cascade'))
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('description', text)
        .addColumn('vcs_type', text, (c) => c.notNull())
        .addColumn('connection_type', text, (c) => c.notNull())
        .addColumn('client_id', text)
        .addColumn('client_secret', text)
        .addColumn('private_key', text)
        .addColumn('access_token', text)
        .addColumn('endpoint', text)
        .addColumn('api_url', text)
        .addColumn('callback', text)
        .addColumn('redirect_url', text)
        .addColumn('status', text, (c) => c.notNull())
        .$call(audit)
        .execute();
      await listedUnder('vcs', 'organization');

      await db.schema
        .createTable('workspace')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('organization_id', text, (c) => c.notNull().references('organization.id').onDelete('cascade'))
        .addColumn('vcs_id', text, (c) => c.references('vcs.id').onDelete('set null'))
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('description', text)
        .addColumn('source', text)
        .addColumn('branch', text)
        .addColumn('folder', text)
        .addColumn('default_template', text)
        .addColumn('iac_type', text, (c) => c.notNull())
        .addColumn('terraform_version', text)
        .addColumn('execution_mode', text, (c) => c.notNull())
        .$call(flag('allow_remote_apply', 0))
        .$call(flag('global_remote_state', 1))
        .addColumn('module_ssh_key', text)
        .$call(flag('locked', 0))
        .addColumn('lock_description', text)
        .$call(flag('deleted', 0))
        .addColumn('last_job_status', text, (c) => c.notNull().defaultTo('NeverExecuted'))
        .addColumn('last_job_date', text)
        .$call(audit)
        .execute();
      await listedUnder('workspace', 'organization');
      // A soft-deleted workspace frees its name.
      await db.schema
        .createIndex('workspace_name_unique')
        .on('workspace')
        .columns(['organization_id', 'name'])
        .unique()
        .where(sql.ref('deleted'), '=', 0)
        .execute();
      await db.schema.createIndex('workspace_vcs').on('workspace').column('vcs_id').execute();

      await db.schema
        .createTable('variable')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('workspace_id', text, (c) => c.notNull().references('workspace.id').onDelete('cascade'))
        .$call(keyValue)
        .$call(flag('incomplete', 0))
        .$call(audit)
        .execute();
      await unique('variable', ['workspace_id', 'key']);
      await listedUnder('variable', 'workspace');

      await db.schema
        .createTable('collection')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('organization_id', text, (c) => c.notNull().references('organization.id').onDelete('cascade'))
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('description', text)
        .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
        .$call(audit)
        .execute();
      await unique('collection', ['organization_id', 'name']);
      await listedUnder('collection', 'organization');

      await db.schema
        .createTable('item')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('collection_id', text, (c) => c.notNull().references('collection.id').onDelete('cascade'))
        .$call(keyValue)
        .$call(audit)
        .execute();
      await unique('item', ['collection_id', 'key']);
      await listedUnder('item', 'collection');

      await db.schema
        .createTable('reference')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('collection_id', text, (c) => c.notNull().references('collection.id').onDelete('cascade'))
        .addColumn('workspace_id', text, (c) => c.notNull().references('workspace.id').onDelete('cascade'))
        .addColumn('description', text)
        .$call(audit)
        .execute();
      await listedUnder('reference', 'collection');
      await db.schema.createIndex('reference_workspace').on('reference').column('workspace_id').execute();

      await db.schema
        .createTable('team')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('organization_id', text, (c) => c.notNull().references('organization.id').onDelete('cascade'))
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('role', text)
        .$call(flag('manage_state', 0))
        .$call(flag('manage_workspace', 0))
        .$call(flag('manage_module', 0))
        .$call(flag('manage_provider', 0))
        .$call(flag('manage_vcs', 0))
        .$call(flag('manage_template', 0))
        .$call(flag('manage_job', 0))
        .$call(flag('manage_collection', 0))
        .$call(flag('plan_job', 0))
        .$call(flag('approve_job', 0))
        .$call(audit)
        .execute();
      await unique('team', ['organization_id', 'name']);
      await listedUnder('team', 'organization');
      // Membership is looked up by group name on every request of a non-administrator.
      await db.schema.createIndex('team_name').on('team').columns(['name', 'organization_id']).execute();
    },
  };
}

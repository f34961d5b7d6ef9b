import { sql, type CreateTableBuilder, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes, withAuditColumns } from './column-types.js';

/**
 * The organization records Terrakube's web UI loads: projects, tags and the tags of workspaces,
 * global variables, SSH keys and agent pools; and the workspace's links to a project, an SSH key and
 * an agent pool, cleared (ON DELETE SET NULL) when the linked record is deleted. A workspace tag goes
 * with its workspace or its tag. Secret values (a sensitive global variable's value, an SSH private
 * key) are stored sealed.
 */
export function terrakubeUiRecords(dialect: Dialect): Migration {
  const { text } = columnTypes(dialect);
  const audit = withAuditColumns(dialect);
  const flag =
    (name: string) =>
    <T extends string>(table: CreateTableBuilder<T>) =>
      table.addColumn(name, 'integer', (c) =>
        c
          .notNull()
          .defaultTo(0)
          .check(sql`${sql.ref(name)} in (0, 1)`),
      );
  const inOrganization = <T extends string>(table: CreateTableBuilder<T>) =>
    table
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('organization_id', text, (c) => c.notNull().references('organization.id').onDelete('cascade'));

  return {
    async up(db: Kysely<unknown>) {
      const index = async (name: string, table: string, columns: string[], unique = false) => {
        const builder = db.schema.createIndex(name).on(table).columns(columns);
        await (unique ? builder.unique() : builder).execute();
      };
      // Lists under a parent read in creation order, the id breaking ties.
      const listedUnder = (table: string, parent: string) =>
        index(`${table}_${parent}_created`, table, [`${parent}_id`, 'created_date', 'id']);

      await db.schema
        .createTable('project')
        .$call(inOrganization)
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('description', text)
        .$call(audit)
        .execute();
      await index('project_name_unique', 'project', ['organization_id', 'name'], true);
      await listedUnder('project', 'organization');

      await db.schema
        .createTable('tag')
        .$call(inOrganization)
        .addColumn('name', text, (c) => c.notNull())
        .$call(audit)
        .execute();
      await index('tag_name_unique', 'tag', ['organization_id', 'name'], true);
      await listedUnder('tag', 'organization');

      await db.schema
        .createTable('workspace_tag')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('workspace_id', text, (c) => c.notNull().references('workspace.id').onDelete('cascade'))
        .addColumn('tag_id', text, (c) => c.notNull().references('tag.id').onDelete('cascade'))
        .$call(audit)
        .execute();
      await index('workspace_tag_tag_id_unique', 'workspace_tag', ['workspace_id', 'tag_id'], true);
      await listedUnder('workspace_tag', 'workspace');
      await index('workspace_tag_tag', 'workspace_tag', ['tag_id']);

      await db.schema
        .createTable('globalvar')
        .$call(inOrganization)
        .addColumn('key', text, (c) => c.notNull())
        .addColumn('value', text)
        .addColumn('description', text)
        .addColumn('category', text, (c) => c.notNull())
        .$call(flag('sensitive'))
        .$call(flag('hcl'))
        .$call(audit)
        .execute();
      await index('globalvar_key_unique', 'globalvar', ['organization_id', 'key'], true);
      await listedUnder('globalvar', 'organization');

      await db.schema
        .createTable('ssh')
        .$call(inOrganization)
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('description', text)
        .addColumn('private_key', text, (c) => c.notNull())
        .addColumn('ssh_type', text, (c) => c.notNull())
        .$call(audit)
        .execute();
      await listedUnder('ssh', 'organization');

      await db.schema
        .createTable('agent')
        .$call(inOrganization)
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('description', text)
        .addColumn('url', text, (c) => c.notNull())
        .$call(audit)
        .execute();
      await listedUnder('agent', 'organization');

      // One column a statement: SQLite adds one at a time.
      for (const [column, target] of [
        ['project_id', 'project'],
        ['ssh_id', 'ssh'],
        ['agent_id', 'agent'],
      ] as const) {
        await db.schema
          .alterTable('workspace')
          .addColumn(column, text, (c) => c.references(`${target}.id`).onDelete('set null'))
          .execute();
        // Deleting the linked record clears the links of its workspaces through this index.
        await index(`workspace_${target}`, 'workspace', [column]);
      }
    },
  };
}

import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes, flagColumn, withAuditColumns } from './column-types.js';

/**
 * The private registry of an organization: modules with the versions read from their repositories'
 * tags, and providers with their versions and each version's builds per platform. A module's VCS
 * connection or SSH key, once deleted, is unlinked; everything else goes with its parent.
 */
export function registry(dialect: Dialect): Migration {
  const { text } = columnTypes(dialect);
  const audit = withAuditColumns(dialect);

  return {
    async up(db: Kysely<unknown>) {
      const index = async (name: string, table: string, columns: string[]) => {
        await db.schema.createIndex(name).on(table).columns(columns).execute();
      };

      await db.schema
        .createTable('module')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('organization_id', text, (c) => c.notNull().references('organization.id').onDelete('cascade'))
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('description', text)
        .addColumn('provider', text, (c) => c.notNull())
        .addColumn('source', text, (c) => c.notNull())
        .addColumn('tag_prefix', text)
        .addColumn('folder', text)
        .addColumn('download_quantity', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('latest_version', text)
        .addColumn('registry_path', text)
        .addColumn('vcs_id', text, (c) => c.references('vcs.id').onDelete('set null'))
        .addColumn('ssh_id', text, (c) => c.references('ssh.id').onDelete('set null'))
        .$call(audit)
        .execute();
      await index('module_organization_created', 'module', ['organization_id', 'created_date', 'id']);
      await index('module_organization_name', 'module', ['organization_id', 'name', 'id']);
      await index('module_vcs', 'module', ['vcs_id']);
      await index('module_ssh', 'module', ['ssh_id']);

      await db.schema
        .createTable('module_version')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('module_id', text, (c) => c.notNull().references('module.id').onDelete('cascade'))
        .addColumn('version', text, (c) => c.notNull())
        .addColumn('git_tag', text)
        .addColumn('commit', text)
        .addColumn('readme', text)
        .addColumn('inputs', text)
        .addColumn('outputs', text)
        .$call(audit)
        .execute();
      await index('module_version_module_created', 'module_version', ['module_id', 'created_date', 'id']);
      await index('module_version_module_version', 'module_version', ['module_id', 'version', 'id']);

      await db.schema
        .createTable('provider')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('organization_id', text, (c) => c.notNull().references('organization.id').onDelete('cascade'))
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('description', text)
        .$call(flagColumn('imported', 0))
        .addColumn('registry_namespace', text)
        .$call(audit)
        .execute();
      await index('provider_organization_created', 'provider', ['organization_id', 'created_date', 'id']);
      await index('provider_organization_name', 'provider', ['organization_id', 'name', 'id']);

      await db.schema
        .createTable('provider_version')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('provider_id', text, (c) => c.notNull().references('provider.id').onDelete('cascade'))
        .addColumn('version_number', text, (c) => c.notNull())
        .addColumn('protocols', text)
        .$call(audit)
        .execute();
      await index('provider_version_provider_created', 'provider_version', ['provider_id', 'created_date', 'id']);
      await index('provider_version_provider_number', 'provider_version', ['provider_id', 'version_number', 'id']);

      await db.schema
        .createTable('implementation')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('version_id', text, (c) => c.notNull().references('provider_version.id').onDelete('cascade'))
        .addColumn('os', text, (c) => c.notNull())
        .addColumn('arch', text, (c) => c.notNull())
        .addColumn('filename', text, (c) => c.notNull())
        .addColumn('download_url', text, (c) => c.notNull())
        .addColumn('shasums_url', text, (c) => c.notNull())
        .addColumn('shasums_signature_url', text, (c) => c.notNull())
        .addColumn('shasum', text, (c) => c.notNull())
        .addColumn('key_id', text)
        .addColumn('ascii_armor', text)
        .addColumn('trust_signature', text)
        .addColumn('source', text)
        .addColumn('source_url', text)
        .$call(audit)
        .execute();
      await index('implementation_version_created', 'implementation', ['version_id', 'created_date', 'id']);
    },
  };
}

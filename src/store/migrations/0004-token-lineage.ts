import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes } from './column-types.js';

/**
 * Token lineage and use. `parent_id` is the API token a token was created with (null when it was
 * created with another kind of token): revoking a token revokes its descendants, and a token is
 * refused while any ancestor is revoked. Deleting a record by hand deletes its descendants, so no
 * token outlives its parent that way either. `last_used_at` tells an administrator which tokens are
 * still in use. One statement per column: SQLite adds one column at a time.
 */
export function tokenLineage(dialect: Dialect): Migration {
  const { text, timestamp } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('api_token')
        .addColumn('parent_id', text, (c) => c.references('api_token.id').onDelete('cascade'))
        .execute();
      await db.schema.alterTable('api_token').addColumn('last_used_at', timestamp).execute();
      await db.schema.createIndex('api_token_parent').on('api_token').column('parent_id').execute();
    },
  };
}

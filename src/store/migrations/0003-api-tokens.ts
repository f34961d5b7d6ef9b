import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes } from './column-types.js';

/**
 * Team and personal API tokens. The token itself is never stored: only its SHA-256 hash, so the
 * server can tell the issued token from another one carrying the same id, and revoke it by id.
 */
export function apiTokens(dialect: Dialect): Migration {
  const { text, timestamp } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('api_token')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('kind', text, (c) => c.notNull().check(sql`kind in ('team', 'personal')`))
        .addColumn('token_hash', text, (c) => c.notNull())
        .addColumn('description', text, (c) => c.notNull())
        // The team a team token speaks for; null for a personal token.
        .addColumn('group_name', text)
        // The subject that created the token: a personal token's owner.
        .addColumn('owner', text, (c) => c.notNull())
        .addColumn('days', 'integer', (c) => c.notNull())
        .addColumn('hours', 'integer', (c) => c.notNull())
        .addColumn('minutes', 'integer', (c) => c.notNull())
        .addColumn('expires_at', timestamp)
        .addColumn('revoked_at', timestamp)
        .addColumn('created_by', text, (c) => c.notNull())
        .addColumn('created_date', timestamp, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('api_token_group').on('api_token').columns(['kind', 'group_name', 'created_date']).execute();
      await db.schema.createIndex('api_token_owner').on('api_token').columns(['kind', 'owner', 'created_date']).execute();
    },
  };
}

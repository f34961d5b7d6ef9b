import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes } from './column-types.js';

/**
 * The audit columns every record carries, on API tokens too: `updated_by` and `updated_date` name
 * who last changed a token (its revocation) and when. Existing tokens take their creation's. One
 * statement per column: SQLite adds one column at a time, and needs a default for a NOT NULL one.
 */
export function tokenAudit(dialect: Dialect): Migration {
  const { text, timestamp } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('api_token')
        .addColumn('updated_by', text, (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('api_token')
        .addColumn('updated_date', timestamp, (c) => c.notNull().defaultTo(''))
        .execute();
      await sql`update api_token set updated_by = created_by, updated_date = created_date`.execute(db);
    },
  };
}

import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes } from './column-types.js';

/**
 * The executors running now (`executor_seen`): each notes itself at its start and every few
 * seconds while it runs, and removes itself when it stops, so an operator can alert on jobs waiting
 * with none alive, whichever replica serves the metrics.
 */
export function executors(dialect: Dialect): Migration {
  const { text, timestamp } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('executor_seen')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('runs', 'integer', (c) => c.notNull())
        .addColumn('started_date', timestamp, (c) => c.notNull())
        .addColumn('seen_date', timestamp, (c) => c.notNull())
        .execute();
    },
  };
}

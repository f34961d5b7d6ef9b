import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes } from './column-types.js';

/**
 * A plan step's structured view (what the plan changes, from `show -json`, sensitive values
 * removed), kept beside the step's log and deleted with it.
 */
export function planViews(dialect: Dialect): Migration {
  const { text } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('step_log').addColumn('plan_view', text).execute();
    },
  };
}

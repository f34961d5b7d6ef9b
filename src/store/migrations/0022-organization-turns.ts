import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes } from './column-types.js';

/**
 * When an executor last took a job of each organization: the claim takes, among the organizations
 * running equally few jobs, the one served longest ago, so executor slots go round the
 * organizations rather than to the oldest job of whichever queued the most.
 */
export function organizationTurns(dialect: Dialect): Migration {
  const { text } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('organization_turn')
        .addColumn('organization_id', text, (c) => c.primaryKey().references('organization.id').onDelete('cascade'))
        .addColumn('taken_at', text, (c) => c.notNull())
        .execute();
    },
  };
}

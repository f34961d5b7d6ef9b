import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes } from './column-types.js';

/**
 * A job's flow as its template held it when the job started, read once then: every step of the
 * job, after an approval too, runs what was approved, whatever the template says by then.
 */
export function jobFlows(dialect: Dialect): Migration {
  const { text } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('job_flow')
        .addColumn('job_id', text, (c) => c.primaryKey().references('job.id').onDelete('cascade'))
        .addColumn('template_id', text, (c) => c.notNull())
        .addColumn('flow', text, (c) => c.notNull())
        .execute();
    },
  };
}

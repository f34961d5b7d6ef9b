import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes } from './column-types.js';

/**
 * What running jobs needs beside their records: the job holding each workspace, with the executor
 * running it and until when its lease runs (`workspace_run`), each step's log (`step_log`,
 * redacted, bounded), a job's saved plan (`job_plan`, sealed: plans hold variable values), and when
 * each schedule fires next (`schedule_fire`).
 */
export function jobRuns(dialect: Dialect): Migration {
  const { text, timestamp } = columnTypes(dialect);

  return {
    async up(db: Kysely<unknown>) {
      // Jobs waiting for an executor, oldest first.
      await db.schema.createIndex('job_status_created').on('job').columns(['status', 'created_date', 'id']).execute();
      // The job holding each workspace: one per workspace by its key, whichever replica claims it.
      await db.schema
        .createTable('workspace_run')
        .addColumn('workspace_id', text, (c) => c.primaryKey().references('workspace.id').onDelete('cascade'))
        .addColumn('job_id', text, (c) => c.notNull().unique().references('job.id').onDelete('cascade'))
        .addColumn('executor', text)
        .addColumn('lease_until', timestamp)
        .execute();

      await db.schema
        .createTable('step_log')
        .addColumn('step_id', text, (c) => c.primaryKey().references('step.id').onDelete('cascade'))
        .addColumn('text', text, (c) => c.notNull())
        .addColumn('trimmed', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('finished', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('updated_date', timestamp, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('job_plan')
        .addColumn('job_id', text, (c) => c.primaryKey().references('job.id').onDelete('cascade'))
        .addColumn('plan', text, (c) => c.notNull())
        .addColumn('bytes', 'integer', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('schedule_fire')
        .addColumn('schedule_id', text, (c) => c.primaryKey().references('schedule.id').onDelete('cascade'))
        // The expression the next firing was computed from: a schedule whose cron changed is computed anew.
        .addColumn('cron', text, (c) => c.notNull())
        .addColumn('next_fire', timestamp)
        .execute();
    },
  };
}

import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes } from './column-types.js';

/**
 * The audit trail and the outbox, both written by a unit of work in the transaction of the change
 * they describe (engine/unit-of-work.ts), so neither outlives a rolled-back write nor misses a
 * committed one.
 *
 * `record_change`: one row per change of a record, who made it and through what, with the changed
 * attributes' values before and after (for a secret only that it changed). Ids are UUIDv7, so the
 * newest-first order is the primary key's.
 *
 * `team.read_audit_trail`: members of such a team read their organization's trail.
 *
 * `outbox_event`: what a change announces (a job's status changed), delivered after commit by a
 * relay that deletes each row once delivered, so a crash between commit and delivery delays an
 * event instead of losing it.
 */
export function auditTrail(dialect: Dialect): Migration {
  const { text, timestamp } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('record_change')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('at', timestamp, (c) => c.notNull())
        .addColumn('organization_id', text)
        .addColumn('actor_kind', text, (c) => c.notNull())
        .addColumn('actor_subject', text, (c) => c.notNull())
        .addColumn('actor_token_kind', text)
        .addColumn('actor_token_id', text)
        .addColumn('actor_job_id', text)
        .addColumn('record_type', text, (c) => c.notNull())
        .addColumn('record_id', text, (c) => c.notNull())
        .addColumn('action', text, (c) => c.notNull())
        .addColumn('transport', text, (c) => c.notNull())
        .addColumn('request_id', text)
        .addColumn('client_address', text)
        .addColumn('attributes', text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('record_change_organization').on('record_change').columns(['organization_id', 'id']).execute();
      await db.schema.createIndex('record_change_record').on('record_change').columns(['record_type', 'record_id', 'id']).execute();
      // Who reads the trail besides administrators: teams whose flag says so.
      await db.schema
        .alterTable('team')
        .addColumn('read_audit_trail', 'integer', (c) =>
          c
            .notNull()
            .defaultTo(0)
            .check(sql`read_audit_trail in (0, 1)`),
        )
        .execute();
      await db.schema
        .createTable('outbox_event')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('topic', text, (c) => c.notNull())
        .addColumn('payload', text, (c) => c.notNull())
        .addColumn('created_date', timestamp, (c) => c.notNull())
        // A relay that takes an event holds it until then; one that dies leaves it to the next.
        .addColumn('claimed_until', timestamp)
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}

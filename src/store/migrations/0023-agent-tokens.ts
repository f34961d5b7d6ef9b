import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { columnTypes } from './column-types.js';

/**
 * The tokens agents (`stratum agent`) take jobs with: each of one agent pool of an organization (the
 * jobs of the workspaces routed to it), or of none (the jobs of every workspace routed to no pool,
 * as the service's own executors take them). Only a hash of each is kept; deleting a pool, or its
 * organization, deletes its tokens.
 */
export function agentTokens(dialect: Dialect): Migration {
  const { text, timestamp } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('agent_token')
        .addColumn('id', text, (c) => c.primaryKey())
        .addColumn('agent_id', text, (c) => c.references('agent.id').onDelete('cascade'))
        .addColumn('token_hash', text, (c) => c.notNull())
        .addColumn('description', text, (c) => c.notNull())
        .addColumn('expires_at', timestamp)
        .addColumn('revoked_at', timestamp)
        .addColumn('last_used_at', timestamp)
        .addColumn('created_by', text, (c) => c.notNull())
        .addColumn('created_date', timestamp, (c) => c.notNull())
        .addColumn('updated_by', text, (c) => c.notNull())
        .addColumn('updated_date', timestamp, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('agent_token_agent').on('agent_token').column('agent_id').execute();
    },
  };
}

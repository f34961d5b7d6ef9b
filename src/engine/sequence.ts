import { sql } from 'kysely';
import type { ResourceDeclaration } from '../model/index.js';
import { maxSequenceId } from '../store/record-id.js';
import type { Scope } from './scope.js';

/** The table that holds the last number each sequence handed out, one row per resource. */
const sequences = 'record_sequence';

/**
 * The next id of a resource whose ids are a sequence (`sequenceIds`): one statement in the create's
 * transaction, which holds the sequence's row until the commit, so concurrent creates on any number
 * of replicas take turns and never share a number; a create that rolls back gives its number back.
 */
export async function nextSequenceId(tx: Scope, resource: ResourceDeclaration): Promise<string> {
  const row = await tx.db
    .insertInto(sequences)
    .values({ name: resource.type, last_value: 1 })
    .onConflict((conflict) => conflict.column('name').doUpdateSet({ last_value: sql`${sql.ref(`${sequences}.last_value`)} + 1` }))
    .returning('last_value')
    .executeTakeFirstOrThrow();
  const next = Number(row.last_value);
  if (!Number.isSafeInteger(next) || next > maxSequenceId) throw new Error(`the ${resource.type} sequence is exhausted`);
  return String(next);
}

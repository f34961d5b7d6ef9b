import type { Row } from '../model/index.js';
import type { KeptTable } from '../model/index.js';
import { recordKeptChange } from './changes.js';
import type { Scope } from './scope.js';
import type { Change, ChangeAction } from './unit-of-work.js';

/**
 * Writes of the rows the service keeps beside the declared records (state locks, API tokens), each
 * recorded in the write's unit of work as the kept table shows it: the one way such a row changes.
 */

/**
 * Inserts a row and records it (`action`: create, or issue for a token). With `unlessTaken`, a row
 * whose key is already taken is left as it is, and false answered: nothing changed, nothing recorded.
 */
export async function insertKept(
  tx: Scope,
  kept: KeptTable,
  row: Row,
  change: { organizationId: Change['organizationId']; action?: ChangeAction; unlessTaken?: boolean },
): Promise<boolean> {
  let query = tx.db.insertInto(kept.table).values(row);
  if (change.unlessTaken === true) query = query.onConflict((conflict) => conflict.column(kept.key).doNothing());
  const inserted = await query.executeTakeFirst();
  if (change.unlessTaken === true && Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
  recordKeptChange(tx, kept, { action: change.action ?? 'create', organizationId: change.organizationId, before: undefined, after: row });
  return true;
}

/** Deletes the rows whose columns hold the values of `where`, recording each; answers how many went. */
export async function deleteKept(tx: Scope, kept: KeptTable, where: Row, organizationId: Change['organizationId']): Promise<number> {
  let query = tx.db.deleteFrom(kept.table);
  for (const [column, value] of Object.entries(where)) query = query.where(column, '=', value);
  // The rows come back from the DELETE itself: a change costs no read of its own.
  const gone = await query.returningAll().execute();
  for (const row of gone) recordKeptChange(tx, kept, { action: 'delete', organizationId, before: row, after: undefined });
  return gone.length;
}

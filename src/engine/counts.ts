import { sql } from 'kysely';
import { columnOf } from '../model/index.js';
import { locateRecord, type RecordAddress } from './locate.js';
import { inOneStatement, type Scope } from './scope.js';

/**
 * Adds one to a count the server keeps on a record the caller can see (404 otherwise), such as a
 * module's downloads: a use of the record, not a change by the caller, so it needs no permission
 * to write and leaves the audit columns alone. One UPDATE that adds to the stored value, so
 * concurrent counts all land; it stops at the attribute's maximum.
 */
export async function countUse(scope: Scope, address: RecordAddress, attribute: string): Promise<void> {
  const { resource } = address;
  const declared = resource.attributes[attribute];
  if (declared?.kind !== 'integer' || !declared.readOnly) throw new Error(`${resource.type}.${attribute} is no count the server keeps`);
  const row = await locateRecord(scope, address);
  const column = sql.ref(columnOf(attribute));
  // One UPDATE, which changes no attribute anyone wrote: on PostgreSQL no transaction of its own.
  await inOneStatement(scope, resource, true, (tx) =>
    tx.db
      .updateTable(resource.table)
      .set({ [columnOf(attribute)]: sql`case when ${column} < ${declared.max} then ${column} + 1 else ${column} end` })
      .where('id', '=', row.id)
      .execute(),
  );
}

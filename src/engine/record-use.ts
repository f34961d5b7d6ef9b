import { columnOf, secretAttributes, type Row } from '../model/index.js';
import type { WriteAction } from '../policy/rules.js';
import { secretPlace } from '../secrets/cipher.js';
import { locateParent, tenantIdOf, type CollectionAddress, type RecordAddress } from './locate.js';
import type { Scope } from './scope.js';
import { changeRecord } from './write.js';
import { authorizeWrite } from './write-authorization.js';

/**
 * A record the caller may change (404 when it cannot see it, 403 when it may not `action` it), for
 * work done with it outside the API (a notification's test delivery), with its secrets opened when
 * `unseal` says so: they leave the engine for that work only, never in an answer.
 */
export async function usableRecord(scope: Scope, address: RecordAddress, action: WriteAction, unseal: boolean): Promise<Row> {
  let found: Row | undefined;
  await changeRecord(scope, address, action, undefined, (_tx, row) => {
    found = row;
    return Promise.resolve();
  });
  if (found === undefined) throw new Error('a record found writable was not returned');
  const row: Row = { ...found };
  if (!unseal) return row;
  const { resource } = address;
  for (const [name] of secretAttributes(resource)) {
    const column = columnOf(name);
    const sealed = row[column];
    if (typeof sealed !== 'string') continue;
    if (scope.engine.cipher === undefined) throw new Error('secrets opened through an engine opened without the encryption key');
    row[column] = scope.engine.cipher.open(sealed, secretPlace(resource.table, column, row.id));
  }
  return row;
}

/** Refuses (404, 403) a caller who may not create records in a collection, without creating one. */
export async function authorizeCreation(scope: Scope, collection: CollectionAddress): Promise<void> {
  const parent = await locateParent(scope, collection.ancestors);
  const step = collection.ancestors.at(-1);
  const held = step === undefined || parent === undefined ? undefined : { resource: step.resource, row: parent };
  await authorizeWrite(scope, collection.resource, 'create', {
    tenantId: async () => (held === undefined ? '' : tenantIdOf(scope, held.resource, held.row)),
    place: () => Promise.resolve(held),
  });
}

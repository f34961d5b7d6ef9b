import { sql, type Expression } from 'kysely';
import {
  type KeptTable,
  auditAttributes,
  attributeFields,
  fromColumn,
  isSecretIn,
  type Registry,
  type ResourceDeclaration,
  type Row,
} from '../model/index.js';
import type { TenantId } from './create-plan.js';
import type { CollectionAddress } from './locate.js';
import type { Scope } from './scope.js';
import type { Change, ChangeAction, ChangedValue, UnitOfWork } from './unit-of-work.js';

/**
 * What a write changed in one record, for its change row: each declared attribute and to-one link
 * whose stored value differs between `before` (undefined on create) and `after` (undefined on
 * delete), as the API shows the values. A secret, or a value that is one before or after, is only
 * said to have changed: its value, sealed or not, never leaves the record.
 */
export function changedAttributes(
  resource: ResourceDeclaration,
  before: Row | undefined,
  after: Row | undefined,
): Record<string, ChangedValue> {
  const changed: Record<string, ChangedValue> = {};
  for (const field of attributeFields(resource)) {
    if (field.name in auditAttributes) continue;
    const was = before?.[field.column] ?? null;
    const is = after?.[field.column] ?? null;
    if ((before !== undefined && isSecretIn(field.attribute, before)) || (after !== undefined && isSecretIn(field.attribute, after))) {
      if (before === undefined || after === undefined || !sameStored(was, is)) changed[field.name] = { sensitive: true };
      continue;
    }
    const value = valueChange({ before, after }, was, is, (stored) => fromColumn(field.attribute, stored));
    if (value !== undefined) changed[field.name] = value;
  }
  for (const [name, link] of Object.entries(resource.relationships)) {
    if (link.kind !== 'toOne') continue;
    const value = valueChange({ before, after }, before?.[link.column] ?? null, after?.[link.column] ?? null, linkValue);
    if (value !== undefined) changed[name] = value;
  }
  return changed;
}

/**
 * One value of a change, as `shown`: none when both rows hold the same, or when a row that came or
 * went held nothing there (a create or delete lists what the record holds, not what it does not).
 */
function valueChange<V>(
  rows: { before: Row | undefined; after: Row | undefined },
  was: unknown,
  is: unknown,
  shown: (stored: unknown) => V,
): { before: V | undefined; after: V | undefined } | undefined {
  const { before, after } = rows;
  if (before !== undefined && after !== undefined && sameStored(was, is)) return undefined;
  if ((before === undefined || after === undefined) && was === null && is === null) return undefined;
  return { before: before === undefined ? undefined : shown(was), after: after === undefined ? undefined : shown(is) };
}

/** Column values as both drivers return them: a number one gives as a string the other gives as a number. */
const sameStored = (a: unknown, b: unknown): boolean => a === b || (a !== null && b !== null && scalarText(a) === scalarText(b));
const scalarText = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean'
    ? String(value)
    : JSON.stringify(value);
const linkValue = (value: unknown): string | null => (value === null || value === undefined ? null : scalarText(value));

/**
 * Records, in the unit of work of the write `tx` is part of, a change of one record of `resource`:
 * `organizationId` is its tenant's id (undefined for a record of the whole service).
 */
export function recordChange(
  tx: Scope,
  resource: ResourceDeclaration,
  change: { action: ChangeAction; id: unknown; organizationId: Change['organizationId']; before: Row | undefined; after: Row | undefined },
  /** For what the server sets on its own: a setting to the values already there is no change. */
  options: { unlessUnchanged?: boolean } = {},
): void {
  const attributes = changedAttributes(resource, change.before, change.after);
  if (options.unlessUnchanged === true && Object.keys(attributes).length === 0) return;
  changeUnit(tx, resource.type).record({
    organizationId: change.organizationId,
    type: resource.type,
    id: String(change.id),
    action: change.action,
    attributes,
  });
}

/** The unit of work of the write `tx` is part of: every change is made in one. */
export function changeUnit(tx: Scope, type = 'record'): UnitOfWork {
  if (tx.work === undefined) throw new Error(`a ${type} was changed outside a unit of work`);
  return tx.work;
}

/** The organization a change lands in: none for a record of the whole service. */
export async function organizationOf(tx: Scope, resource: ResourceDeclaration, tenant: TenantId): Promise<string | undefined> {
  return tx.engine.registry.isGlobal(resource) ? undefined : tenant();
}

/**
 * The organization of a row of `resource` as SQL, from its columns as `column` gives them: its own
 * id for the organization, null for a record of the whole service, else its parent's, through a
 * subquery for each parent above the first; nothing is read before the statement that uses it.
 */
export function organizationOfRow(
  registry: Registry,
  resource: ResourceDeclaration,
  column: (name: string) => Expression<unknown>,
): Expression<unknown> {
  if (registry.isGlobal(resource)) return sql`null`;
  const link = registry.parentLink(resource);
  if (link === undefined) return column('id');
  const parent = registry.target(link);
  const parentId = column(link.column);
  return organizationOfRow(registry, parent, (name) =>
    name === 'id' ? parentId : sql`(select ${sql.ref(name)} from ${sql.table(parent.table)} where ${sql.ref('id')} = ${parentId})`,
  );
}

/** Records, in the unit of work of the write `tx` is part of, a change of one row of a kept table. */
export function recordKeptChange(tx: Scope, kept: KeptTable, change: KeptRowChange): void {
  changeUnit(tx, kept.type).record(keptChange(kept, change));
}

export interface KeptRowChange {
  action: ChangeAction;
  organizationId: Change['organizationId'];
  before: Row | undefined;
  after: Row | undefined;
}

/** The change of one row of a kept table: the shown columns that differ, or that it holds when it came or went. */
export function keptChange(kept: KeptTable, change: KeptRowChange): Change {
  const attributes: Record<string, ChangedValue> = {};
  for (const [name, column] of Object.entries(kept.shown)) {
    const value = valueChange(change, change.before?.[column] ?? null, change.after?.[column] ?? null, keptValue);
    if (value !== undefined) attributes[name] = value;
  }
  const id = (change.after ?? change.before)?.[kept.key];
  return { organizationId: change.organizationId, type: kept.type, id: String(id), action: change.action, attributes };
}

const keptValue = (value: unknown): string | number | boolean | null =>
  value === null || value === undefined ? null : typeof value === 'number' || typeof value === 'boolean' ? value : scalarText(value);

/**
 * The organization of a new record: the first step of its path names it when the path starts
 * there (the INSERT checked the whole path); else the change row's INSERT reads it up the
 * record's parents, so the one-statement create asks for nothing more.
 */
export function createdIn(tx: Scope, collection: CollectionAddress, row: Row): Change['organizationId'] {
  const { registry } = tx.engine;
  const { resource } = collection;
  if (registry.isGlobal(resource)) return undefined;
  if (resource === registry.tenant) return String(row.id);
  const first = collection.ancestors[0];
  if (first !== undefined && first.resource === registry.tenant) return first.id;
  return organizationOfRow(registry, resource, (name) => sql`${String(row[name])}`);
}

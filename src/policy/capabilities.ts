import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import { columnOf, type Database, type Registry, type ResourceDeclaration, type Row } from '../model/index.js';

/** Every capability a membership can grant, by name. */
export const capabilityNames = (registry: Registry): readonly string[] => registry.membership?.rules.capabilities ?? [];

/**
 * The capabilities the caller holds in one tenant it can read: every one for administrators,
 * otherwise the union of what its membership records there grant.
 */
export async function capabilitiesIn(
  db: Kysely<Database>,
  registry: Registry,
  caller: Caller,
  tenantId: string,
): Promise<ReadonlySet<string>> {
  if (caller.isAdministrator) return new Set(capabilityNames(registry));
  const membership = registry.membership;
  const link = membership === undefined ? undefined : registry.parentLink(membership.resource);
  if (membership === undefined || link === undefined || caller.groups.length === 0) return new Set();
  const records = await db
    .selectFrom(membership.resource.table)
    .selectAll()
    .where(link.column, '=', tenantId)
    .where(columnOf(membership.rules.groupAttribute), 'in', caller.groups)
    .execute();
  return new Set(records.flatMap((record) => membership.rules.grants(record)));
}

/** A stored record, with the resource it is of. */
export interface HeldRecord {
  resource: ResourceDeclaration;
  row: Row;
}

/**
 * The capabilities the caller's grants give on `records` (a record, and those it lives in): the
 * union of what each grant of one of its groups reaching one of them gives. Nothing for
 * administrators, who hold every capability anyway.
 */
export async function grantedOn(
  db: Kysely<Database>,
  registry: Registry,
  caller: Caller,
  records: readonly HeldRecord[],
): Promise<ReadonlySet<string>> {
  const held = new Set<string>();
  if (caller.isAdministrator || caller.groups.length === 0) return held;
  for (const { resource, row } of records) {
    for (const { grant, rules, column } of registry.reachesOf(resource)) {
      const on = row[column];
      const link = registry.parentLink(grant);
      if (typeof on !== 'string' || link === undefined) continue;
      const grants = await db
        .selectFrom(grant.table)
        .selectAll()
        .where(link.column, '=', on)
        .where(columnOf(rules.groupAttribute), 'in', caller.groups)
        .execute();
      for (const record of grants) for (const capability of rules.grants(record)) held.add(capability);
    }
  }
  return held;
}

/** The flag administrators hold beside the capabilities. */
const administrationFlag = 'managePermission';

/** The names of the permission flags: each capability, and the administrators' one. */
export const permissionFlagNames = (registry: Registry): string[] => [...capabilityNames(registry), administrationFlag];

/**
 * The permission flags Terrakube clients read to enable their buttons: each capability, and
 * `managePermission` for administrators.
 */
export function permissionFlags(registry: Registry, caller: Caller, held: ReadonlySet<string>): Record<string, boolean> {
  const flags = Object.fromEntries(capabilityNames(registry).map((capability) => [capability, held.has(capability)]));
  return { ...flags, [administrationFlag]: caller.isAdministrator };
}

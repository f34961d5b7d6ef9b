import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import { columnOf, type Database, type Registry } from '../model/index.js';

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

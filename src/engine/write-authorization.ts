import type { ResourceDeclaration, Row } from '../model/index.js';
import { capabilitiesIn, grantedOn, type HeldRecord } from '../policy/capabilities.js';
import { authorize, type WriteAction } from '../policy/rules.js';
import type { TenantId } from './create-plan.js';
import type { RecordInput } from './input.js';
import { recordsAbove } from './locate.js';
import type { Scope } from './scope.js';

/** Where a write happens, as its rule sees it: the tenant, and the record whose grants count (none at the tenant's level). */
export interface WritePlace {
  tenantId: TenantId;
  place: () => Promise<HeldRecord | undefined>;
  /** Whether the caller's grants count, or its memberships alone. */
  grants?: boolean;
}

/**
 * Refuses (403) a write the policy table does not allow: the rule of the resource and action, asked
 * with the caller's capabilities in the tenant and, when the rule counts them, its grants.
 */
export async function authorizeWrite(scope: Scope, resource: ResourceDeclaration, action: WriteAction, where: WritePlace): Promise<void> {
  const { registry, policies } = scope.engine;
  // A global record lies in no tenant, where a membership or a grant could give something: its rules require neither.
  const global = registry.isGlobal(resource);
  const context = {
    caller: scope.caller,
    capabilities: async () => (global ? new Set<string>() : capabilitiesIn(scope.db, registry, scope.caller, await where.tenantId())),
    granted: async (): Promise<ReadonlySet<string>> => {
      const place = where.grants === false || global ? undefined : await where.place();
      return place === undefined
        ? new Set()
        : grantedOn(scope.db, registry, scope.caller, await recordsAbove(scope, place.resource, place.row));
    },
  };
  await authorize(policies.rule(resource, action), context, resource.type, registry.tenant.type);
}

/** Authorizes `action` on a stored record; with `grants` false, by the caller's memberships alone. */
export async function authorizeOn(
  scope: Scope,
  resource: ResourceDeclaration,
  row: Row,
  tenantId: TenantId,
  action: WriteAction,
  grants = true,
): Promise<void> {
  await authorizeWrite(scope, resource, action, {
    tenantId,
    place: () => Promise.resolve({ resource, row }),
    grants,
  });
}

/**
 * Two updates do more than update: one that soft-deletes the record is a delete, and one that
 * changes a link through which grants reach the record (a workspace's project) moves it into or out
 * of their reach, which no grant allows: it needs the write rule by the caller's memberships alone.
 */
export async function authorizeUpdateEffects(
  tx: Scope,
  resource: ResourceDeclaration,
  row: Row,
  tenantId: TenantId,
  input: RecordInput,
): Promise<void> {
  if (resource.softDelete !== undefined && input.attributes[resource.softDelete] === true)
    await authorizeOn(tx, resource, row, tenantId, 'delete');
  if (movesGrants(tx, resource, row, input.relationships)) await authorizeOn(tx, resource, row, tenantId, 'update', false);
}

/** Whether links an input sets change one through which grants reach the record. */
export function movesGrants(scope: Scope, resource: ResourceDeclaration, row: Row, links: Record<string, string | null>): boolean {
  return scope.engine.registry.grantingLinks(resource).some((name) => {
    const link = resource.relationships[name];
    return Object.hasOwn(links, name) && link?.kind === 'toOne' && links[name] !== (row[link.column] ?? null);
  });
}

/**
 * Whether the caller holds `capability` where a write happens: administrators always; others from
 * a team of the tenant, or, for a stored record, from a grant reaching it.
 */
export async function holdsOn(
  scope: Scope,
  resource: ResourceDeclaration,
  row: Row | undefined,
  tenantId: TenantId,
  capability: string,
): Promise<boolean> {
  const { registry } = scope.engine;
  if (scope.caller.isAdministrator) return true;
  if (!registry.isGlobal(resource) && (await capabilitiesIn(scope.db, registry, scope.caller, await tenantId())).has(capability))
    return true;
  if (row === undefined) return false;
  return (await grantedOn(scope.db, registry, scope.caller, await recordsAbove(scope, resource, row))).has(capability);
}

import type { ResourceDeclaration } from '../model/index.js';
import { capabilitiesIn, grantedOn, permissionFlags } from '../policy/capabilities.js';
import { locateRecord, recordsAbove } from './locate.js';
import type { Scope } from './scope.js';

/** Where a caller's permissions are asked for: a tenant, or a record directly inside it. */
export interface PermissionPlace {
  tenantId: string;
  within?: { resource: ResourceDeclaration; id: string };
}

/**
 * The permission flags Terrakube clients read to enable their buttons, for a tenant the caller can
 * see (and a record of it, when one is named, with what the caller's grants give on that record);
 * 404 otherwise.
 */
export async function permissionsIn(scope: Scope, { tenantId, within }: PermissionPlace): Promise<Record<string, boolean>> {
  const { registry } = scope.engine;
  const tenant = registry.tenant;
  await locateRecord(scope, { resource: tenant, ancestors: [], id: tenantId });
  const held = new Set(await capabilitiesIn(scope.db, registry, scope.caller, tenantId));
  if (within !== undefined) {
    const row = await locateRecord(scope, { resource: within.resource, ancestors: [{ resource: tenant, id: tenantId }], id: within.id });
    for (const capability of await grantedOn(scope.db, registry, scope.caller, await recordsAbove(scope, within.resource, row)))
      held.add(capability);
  }
  return permissionFlags(registry, scope.caller, held);
}

import { ApiError, invalidValue, type Place } from '../errors.js';
import type { Scope } from './scope.js';
import { tenantIdOf } from './locate.js';
import { findVisible } from './queries.js';

/**
 * A link must name a record of its type the caller can see, in the tenant of the record that links
 * it. Any other is a 404 at the relationship, as JSON:API and Elide answer a related record that
 * does not exist; a record of another tenant is not there, seen from this one (so a member of two
 * organizations learns nothing of one by linking from the other). An id sent as an attribute (an
 * `idOf` attribute, or a link clients send as one) is a value, and a bad value is a 422.
 */
export async function checkLinkTarget(tx: Scope, type: string, id: string | null, tenantId: string, at: Place): Promise<void> {
  if (id === null) return;
  const target = tx.engine.registry.get(type);
  const row = target === undefined ? undefined : await findVisible(tx, target, id);
  if (target !== undefined && row !== undefined && (await tenantIdOf(tx, target, row)) === tenantId) return;
  const detail = `Unknown identifier ${id} for ${type} in this ${tx.engine.registry.tenant.type}.`;
  if ('attribute' in at) throw invalidValue(detail, at);
  throw new ApiError(404, { code: 'not_found', detail, at });
}

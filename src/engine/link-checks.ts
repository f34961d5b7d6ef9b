import { ApiError, invalidValue, type Place } from '../errors.js';
import { columnOf, type AttributeValues, type ResourceDeclaration, type Row, type ToOne } from '../model/index.js';
import type { TenantId } from './create-plan.js';
import { tenantIdOf } from './locate.js';
import { findVisible } from './queries.js';
import type { Scope } from './scope.js';

/** Where the problems of a link are: the attribute that holds its id, when clients send it as one. */
export const linkPlace = (name: string, link: ToOne): Place =>
  link.attribute === undefined ? { relationship: name, part: 'linkage' } : { attribute: link.attribute };

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

/**
 * Attributes that hold a record's id as text (`idOf`), or a list of them (`idsOf`), are checked as
 * links are, when a write sets them: empty (how clients say "none"), or a record the caller can
 * see in the same tenant. A value an update leaves as stored is not checked again, so a record
 * saved as read stays savable after the record it names was deleted.
 */
export async function checkIdAttributes(
  tx: Scope,
  resource: ResourceDeclaration,
  values: AttributeValues,
  place: { current: Row | undefined; tenantId: TenantId },
): Promise<void> {
  for (const [name, value] of Object.entries(values)) {
    const attribute = resource.attributes[name];
    if (attribute?.kind !== 'text' || typeof value !== 'string' || value === '') continue;
    const stored = place.current?.[columnOf(name)];
    if (attribute.idOf !== undefined && stored !== value)
      await checkLinkTarget(tx, attribute.idOf, value, await place.tenantId(), { attribute: name });
    if (attribute.idsOf !== undefined) await checkIdList(tx, attribute.idsOf, { name, value, stored }, place.tenantId);
  }
}

/**
 * A list of ids as text, comma-separated: each one named once, and each one the stored list does
 * not hold yet checked as a link is (a list saved as read stays savable after one of its records
 * was deleted).
 */
async function checkIdList(
  tx: Scope,
  type: string,
  list: { name: string; value: string; stored: unknown },
  tenantId: TenantId,
): Promise<void> {
  const at = { attribute: list.name };
  const ids = list.value.split(',').map((id) => id.trim());
  const kept = new Set(typeof list.stored === 'string' ? list.stored.split(',').map((id) => id.trim()) : []);
  const seen = new Set<string>();
  for (const id of ids) {
    if (id === '') throw invalidValue(`${list.name} lists ${type} ids separated by commas, without empty ones.`, at);
    if (seen.has(id)) throw invalidValue(`${list.name} names ${type} ${id} twice.`, at);
    seen.add(id);
    if (!kept.has(id)) await checkLinkTarget(tx, type, id, await tenantId(), at);
  }
}

/**
 * The to-one links of a write as columns. The link to the parent may be sent (clients do) but must
 * name the parent; a record never moves to another parent. Any other link must name a record the
 * caller can see in the same tenant.
 */
export async function linkColumns(
  tx: Scope,
  resource: ResourceDeclaration,
  relationships: Record<string, string | null>,
  place: { parentId: unknown; tenantId: TenantId },
): Promise<Row> {
  const columns: Row = {};
  const parentLink = tx.engine.registry.parentLink(resource);
  for (const [name, id] of Object.entries(relationships)) {
    const link = resource.relationships[name] as ToOne;
    const at = linkPlace(name, link);
    if (name === resource.parent) {
      if (id !== place.parentId)
        throw invalidValue(`Relationship ${name} must be the ${link.type} of this ${resource.type}, ${String(place.parentId)}.`, at);
      continue;
    }
    await checkLinkTarget(tx, link.type, id, await place.tenantId(), at);
    columns[link.column] = id;
  }
  if (parentLink !== undefined && place.parentId !== undefined) columns[parentLink.column] = place.parentId;
  return columns;
}

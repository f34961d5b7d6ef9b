import { invalidValue } from '../errors.js';
import type { ResourceDeclaration, ToOne } from '../model/index.js';
import type { HeldRecord } from '../policy/capabilities.js';
import { locateRecord, type CollectionAddress } from './locate.js';
import type { Scope } from './scope.js';

/** The record a create's path links the new record to. */
export interface PathLink {
  relationship: string;
  id: string;
  held: HeldRecord;
  /** Whether grants on the linked record reach the new one through this link. */
  grants: boolean;
}

/** The record a collection's path links new records to, visible to the caller (404). */
export async function linkedRecord(tx: Scope, collection: CollectionAddress): Promise<PathLink | undefined> {
  if (collection.linked === undefined) return undefined;
  const { relationship, record } = collection.linked;
  const row = await locateRecord(tx, record);
  const { registry } = tx.engine;
  const grants = registry.grantingLinks(collection.resource).includes(relationship);
  // Grants count as they will on the new record once it links this one: those that reach it
  // through the link, and no others (a grant on the linked record's project does not).
  const link = collection.resource.relationships[relationship] as ToOne;
  const held = { resource: collection.resource, row: { id: '', [link.column]: String(row.id) } };
  return { relationship, id: String(row.id), held, grants };
}

/** The link a path gives: a document may send it too, but naming the same record. */
export function linkFromPath(resource: ResourceDeclaration, links: Record<string, string | null>, linked: PathLink): void {
  const sent = links[linked.relationship];
  if (Object.hasOwn(links, linked.relationship) && sent !== linked.id) {
    const link = resource.relationships[linked.relationship] as ToOne;
    throw invalidValue(
      `Relationship ${linked.relationship} must be the ${link.type} of the path, ${linked.id}.`,
      link.attribute === undefined ? { relationship: linked.relationship, part: 'linkage' } : { attribute: link.attribute },
    );
  }
  links[linked.relationship] = linked.id;
}

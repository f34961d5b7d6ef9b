import { sql, type SqlBool } from 'kysely';
import { auditName } from '../auth/caller.js';
import { ApiError, forbidden, type Place } from '../errors.js';
import { auditColumns, type Relationship, type ResourceDeclaration } from '../model/index.js';
import type { Scope } from './scope.js';
import { locateRecord, type RecordAddress } from './locate.js';
import { defaultPageSize, type Page, type SortKey } from './options.js';
import { listVisible, type ListResult } from './queries.js';
import type { Precondition } from './versions.js';
import { changeRecord } from './write.js';
import { organizationOf, recordChange } from './changes.js';
import { checkLinkTarget } from './link-checks.js';
import { listedBy, replaceMembers } from './members.js';
import { authorizeOn, movesGrants } from './write-authorization.js';

/** A declared relationship, or only the kind of one that clients use and Stratum does not model yet. */
export type NamedRelationship = Relationship | { kind: 'unmodeled'; many: boolean };

/** The relationship `name` of a resource; a name neither declared nor known to clients is a 404. */
export function relationshipNamed(scope: Scope, resource: ResourceDeclaration, name: string): NamedRelationship {
  const { registry } = scope.engine;
  const declared = registry.relationship(resource, name);
  if (declared !== undefined) return declared;
  const unmodeled = registry.unmodeled(name);
  if (unmodeled !== undefined) return { kind: 'unmodeled', many: unmodeled === 'toMany' };
  throw new ApiError(404, { code: 'not_found', detail: `${resource.type} has no relationship ${name}.` });
}

export interface Linkage {
  type: string;
  id: string;
}

export type RelationshipContent =
  | { kind: 'toOne'; linkage: Linkage | null }
  | { kind: 'toMany'; type: string; records: ListResult; page: Page; atMostOne: boolean }
  /** A relationship not modeled yet reads as empty. */
  | { kind: 'unmodeled'; many: boolean };

/** The order and page of a to-many relationship's linkage. */
export interface LinkagePage {
  sort: SortKey[];
  page: Page;
}

/** The linkage of one relationship of a visible record: a to-many one as a page of the records it lists. */
export async function readRelationship(
  scope: Scope,
  address: RecordAddress,
  relationship: NamedRelationship,
  list: LinkagePage = { sort: [], page: { offset: 0, limit: defaultPageSize, totals: false } },
): Promise<RelationshipContent> {
  const row = await locateRecord(scope, address);
  switch (relationship.kind) {
    case 'unmodeled':
      return relationship;
    case 'toOne': {
      const id = row[relationship.column];
      return { kind: 'toOne', linkage: typeof id === 'string' ? { type: relationship.type, id } : null };
    }
    case 'toMany': {
      const target = scope.engine.registry.target(relationship);
      const where = [sql<SqlBool>`${sql.ref(`r.${relationship.column}`)} = ${String(row.id)}`];
      // The record was just found visible: when it is the listed records' parent, they need only their own checks.
      const known = {
        parentCheck: scope.engine.registry.parentLink(target)?.column === relationship.column ? ('done' as const) : ('row' as const),
      };
      const records = await listVisible(scope, target, { where, ...list, idsOnly: true, known });
      return { kind: 'toMany', type: target.type, records, page: list.page, atMostOne: relationship.atMostOne === true };
    }
    case 'manyToMany': {
      const target = scope.engine.registry.target(relationship);
      const records = await listVisible(scope, target, { where: [listedBy(relationship, String(row.id))], ...list, idsOnly: true });
      return { kind: 'toMany', type: target.type, records, page: list.page, atMostOne: false };
    }
  }
}

/** Why a to-many relationship is not changed as a whole, nor member by member: one answer for every way of asking. */
const changedThroughRecords = (resource: ResourceDeclaration, name: string) =>
  forbidden(`Relationship ${name} of ${resource.type} changes through the records it lists: create or delete those records instead.`);

/**
 * Links a to-one relationship to another record of the same tenant, or unlinks it (null); replaces
 * the records a many-to-many relationship lists, as a whole. The parent never changes, and other
 * to-many relationships change through the records they list (403).
 * Checked after the record is found visible and writable: a caller who may not see the record
 * learns nothing about it, not even which relationships it has.
 */
export async function updateRelationship(
  scope: Scope,
  address: RecordAddress,
  name: string,
  readLinkage: () => Linkage | null | Linkage[],
  precondition?: Precondition,
): Promise<void> {
  const { resource } = address;
  const relationship = relationshipNamed(scope, resource, name);
  const at: Place = { relationship: name, part: 'linkage' };
  await changeRecord(scope, address, 'update', precondition, async (tx, row, tenantId) => {
    if (relationship.kind === 'toMany') throw changedThroughRecords(resource, name);
    if (relationship.kind === 'manyToMany') {
      const members = readLinkage();
      if (!Array.isArray(members)) throw listReplaced(resource, name, at);
      await replaceMembers(
        tx,
        { resource, row, name, link: relationship },
        members,
        await tenantId(),
        await organizationOf(tx, resource, tenantId),
      );
      await tx.db
        .updateTable(resource.table)
        .set({ ...auditColumns(auditName(tx.caller), new Date().toISOString(), 'update') })
        .where('id', '=', row.id)
        .execute();
      return;
    }
    if (relationship.kind === 'unmodeled' && relationship.many) {
      // Replaced with nothing, as a client that narrows nothing sends it, it stays as it reads: empty.
      const members = readLinkage();
      if (!Array.isArray(members)) throw changedThroughRecords(resource, name);
      if (members.length === 0) return;
      throw new ApiError(422, { code: 'not_supported', detail: `Relationship ${name} is not supported yet; send an empty list.`, at });
    }
    const linkage = readLinkage();
    if (Array.isArray(linkage)) {
      throw new ApiError(400, { code: 'invalid_document', detail: `Relationship ${name} links one record, not a list.`, at });
    }
    if (name === resource.parent) {
      // Naming the parent it has changes nothing, as a body may name it; any other is a move.
      const parent = relationship.kind === 'toOne' ? relationship : undefined;
      if (linkage !== null && parent !== undefined && linkage.type === parent.type && linkage.id === row[parent.column]) return;
      throw forbidden(`A ${resource.type} never moves to another ${name}.`);
    }
    if (relationship.kind === 'unmodeled') {
      if (linkage !== null)
        throw new ApiError(422, { code: 'not_supported', detail: `Relationship ${name} is not supported yet; send null.`, at });
      return;
    }
    if (linkage === null && relationship.required) {
      throw new ApiError(422, { code: 'required', detail: `Relationship ${name} must link a ${relationship.type}.`, at });
    }
    if (linkage !== null && linkage.type !== relationship.type) {
      throw new ApiError(409, {
        code: 'type_mismatch',
        detail: `Relationship ${name} links ${relationship.type} records.`,
        at: { relationship: name, part: 'type' },
      });
    }
    if (movesGrants(tx, resource, row, { [name]: linkage?.id ?? null })) await authorizeOn(tx, resource, row, tenantId, 'update', false);
    if (linkage !== null) await checkLinkTarget(tx, relationship.type, linkage.id, await tenantId(), at);
    const columns = {
      [relationship.column]: linkage?.id ?? null,
      ...auditColumns(auditName(tx.caller), new Date().toISOString(), 'update'),
    };
    await tx.db.updateTable(resource.table).set(columns).where('id', '=', row.id).execute();
    recordChange(tx, resource, {
      action: 'update',
      id: row.id,
      organizationId: await organizationOf(tx, resource, tenantId),
      before: row,
      after: { ...row, ...columns },
    });
  });
}

/** A many-to-many relationship is replaced by the list of the records it lists, never by one or by null. */
const listReplaced = (resource: ResourceDeclaration, name: string, at: Place) =>
  new ApiError(400, {
    code: 'invalid_document',
    detail: `Relationship ${name} of ${resource.type} lists records: replace it with a list of them, [] for none.`,
    at,
  });

/**
 * Adds records to a relationship of a record, or removes them from it (JSON:API's POST and DELETE
 * on the relationship, atomic add and remove): refused (403) once the record is found visible and
 * writable, as replacing it is. A to-many relationship changes through the records it lists, a
 * many-to-many one by replacing its whole list (as Terrakube's web UI does); a to-one one links one
 * record, which PATCH replaces.
 */
export async function changeMembers(scope: Scope, address: RecordAddress, name: string, precondition?: Precondition): Promise<void> {
  const { resource } = address;
  const relationship = relationshipNamed(scope, resource, name);
  await changeRecord(scope, address, 'update', precondition, () => {
    if (relationship.kind === 'manyToMany') {
      throw forbidden(`Relationship ${name} of ${resource.type} is replaced as a whole: send the full list with PATCH.`);
    }
    if (relationship.kind === 'toMany' || (relationship.kind === 'unmodeled' && relationship.many)) {
      throw changedThroughRecords(resource, name);
    }
    throw forbidden(`Relationship ${name} of ${resource.type} links one record: replace it with PATCH, or unlink it with {"data": null}.`);
  });
}

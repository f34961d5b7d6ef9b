import { ApiError, notFound } from '../errors.js';
import type { ManyToMany, ResourceDeclaration, Row, ToOne } from '../model/index.js';
import type { HeldRecord } from '../policy/capabilities.js';
import type { Scope } from './scope.js';
import { canName, findVisible } from './queries.js';

/** A record named by its id, as one step of a path. */
export interface PathStep {
  resource: ResourceDeclaration;
  id: string;
}

/** The records of one resource under the records a path names before them (none for top-level access). */
export interface CollectionAddress {
  resource: ResourceDeclaration;
  ancestors: readonly PathStep[];
  /**
   * A record beside the parent that the path names too (`/organization/{id}/workspace/{id}/...` for
   * records of the organization linked to that workspace): a create links it through `relationship`.
   */
  linked?: { relationship: string; record: RecordAddress };
  /** The records another record's many-to-many relationship lists (`/notification_configuration/{id}/templates`). */
  listedBy?: { relationship: ManyToMany; record: RecordAddress };
}

/**
 * One record: by its id under the ancestors its path names, or as the record another record's
 * to-one relationship links (`/workspace/{id}/vcs/{vcsId}`).
 */
export type RecordAddress =
  | { resource: ResourceDeclaration; ancestors: readonly PathStep[]; id: string }
  | { resource: ResourceDeclaration; through: { record: RecordAddress; relationship: ToOne }; id: string };

/**
 * The record a path names last among `ancestors`, visible to the caller with every step of its
 * path; undefined when the path names none. The first step that is not there answers 404 with its
 * own id.
 */
export async function locateParent(scope: Scope, ancestors: readonly PathStep[]): Promise<Row | undefined> {
  const parent = ancestors.at(-1);
  if (parent === undefined) return undefined;
  return locateRecord(scope, { resource: parent.resource, ancestors: ancestors.slice(0, -1), id: parent.id });
}

/**
 * The record an address names, visible to the caller; otherwise a 404 naming it. The record and
 * every id of its path are checked in one query; only when that finds nothing does a step-by-step
 * search find which id to name. `lock` holds the record (not its ancestors) until the transaction
 * ends, for a write.
 */
export async function locateRecord(scope: Scope, address: RecordAddress, lock = false): Promise<Row> {
  if ('through' in address) {
    const owner = await locateRecord(scope, address.through.record);
    const linked = owner[address.through.relationship.column] === address.id;
    const row = linked ? await findVisible(scope, address.resource, address.id, { lock }) : undefined;
    if (row === undefined) throw notFound(address.resource.type, address.id);
    return row;
  }
  const row = await findVisible(scope, address.resource, address.id, { lock, pathIds: pathIdsOf(address.ancestors) });
  if (row !== undefined) return row;
  for (let depth = 1; depth <= address.ancestors.length; depth++) {
    const step = address.ancestors[depth - 1];
    if (step === undefined) break;
    const above = address.ancestors
      .slice(0, depth - 1)
      .map((s) => s.id)
      .reverse();
    if ((await findVisible(scope, step.resource, step.id, { pathIds: above })) === undefined) throw notFound(step.resource.type, step.id);
  }
  throw notFound(address.resource.type, address.id);
}

/** The ids of a path from the parent up, as the visibility condition walks them. */
export const pathIdsOf = (ancestors: readonly PathStep[]): string[] => ancestors.map((step) => step.id).reverse();

/**
 * Runs `work`, which checks the parent of `ancestors` inside its own query instead of looking it up
 * first, and keeps the order of answers of a lookup first: an id that cannot name a record, and any
 * refusal `work` throws, are answered as a missing parent would be, by `lookUp` (404 naming the first
 * step that is not there) before anything else. A database failure leaves as it is.
 */
export async function parentFirst<T>(ancestors: readonly PathStep[], lookUp: () => Promise<unknown>, work: () => Promise<T>): Promise<T> {
  if (!ancestors.every((step) => canName(step.resource, step.id))) await lookUp();
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError) await lookUp();
    throw error;
  }
}

/**
 * A record and those it lives in, up to its tenant (not included): where grants on it may be held;
 * for a resource that takes its grants through a link (a job, its workspace's), that record and
 * those it lives in too.
 */
export async function recordsAbove(scope: Scope, resource: ResourceDeclaration, row: Row): Promise<HeldRecord[]> {
  const { registry } = scope.engine;
  const link = resource.grantsThrough === undefined ? undefined : registry.relationship(resource, resource.grantsThrough);
  const through = link?.kind === 'toOne' ? registry.target(link) : undefined;
  const linkedId = link?.kind === 'toOne' ? row[link.column] : undefined;
  const linked =
    through === undefined || typeof linkedId !== 'string'
      ? undefined
      : await scope.db.selectFrom(through.table).selectAll().where('id', '=', linkedId).executeTakeFirst();
  return [
    ...(await ownRecordsAbove(scope, resource, row)),
    ...(through === undefined || linked === undefined ? [] : await ownRecordsAbove(scope, through, linked)),
  ];
}

async function ownRecordsAbove(scope: Scope, resource: ResourceDeclaration, row: Row): Promise<HeldRecord[]> {
  const { registry } = scope.engine;
  const records: HeldRecord[] = [];
  let at: HeldRecord | undefined = resource === registry.tenant ? undefined : { resource, row };
  while (at !== undefined) {
    records.push(at);
    const link = registry.parentLink(at.resource);
    const parent = link === undefined ? undefined : registry.target(link);
    if (link === undefined || parent === undefined || parent === registry.tenant) break;
    const parentRow = await scope.db.selectFrom(parent.table).selectAll().where('id', '=', String(at.row[link.column])).executeTakeFirst();
    at = parentRow === undefined ? undefined : { resource: parent, row: parentRow };
  }
  return records;
}

/** The id of the tenant a record lives in, walking up its parents (no query when the parent is the tenant). */
export async function tenantIdOf(scope: Scope, resource: ResourceDeclaration, row: Row): Promise<string> {
  const { registry } = scope.engine;
  const link = registry.parentLink(resource);
  if (link === undefined) return String(row.id);
  const parent = registry.target(link);
  if (parent === registry.tenant) return String(row[link.column]);
  const parentId = String(row[link.column]);
  const parentRow = await scope.db.selectFrom(parent.table).selectAll().where('id', '=', parentId).executeTakeFirst();
  // Deleted by a request that committed after this one found the record.
  if (parentRow === undefined) throw notFound(parent.type, parentId);
  return tenantIdOf(scope, parent, parentRow);
}

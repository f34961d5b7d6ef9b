import { sql, type SqlBool } from 'kysely';
import type { ResourceDeclaration, Row, ToOne } from '../model/index.js';
import { compileFilter } from '../rsql/compile.js';
import type { Condition } from '../store/conditions.js';
import type { Scope } from './scope.js';
import { loadIncluded, type IncludeResult } from './include.js';
import { locateParent, locateRecord, parentFirst, pathIdsOf, type CollectionAddress, type RecordAddress } from './locate.js';
import type { ListOptions, Page, ReadOptions } from './options.js';
import { filterContext, findVisible, listVisible, type ListResult } from './queries.js';
import { listedBy as listedByCondition } from './members.js';

/** One record, with the related records its read asked to include. */
export interface RecordResult {
  resource: ResourceDeclaration;
  row: Row;
  included: IncludeResult;
}

/** One page of records, with what the list asked to include. */
export interface RecordPage extends ListResult {
  resource: ResourceDeclaration;
  /** The page as read: where it starts, and how many records it holds at most. */
  page: Page;
  included: IncludeResult;
}

/**
 * The records of a collection the caller may see, filtered, sorted and paged. The page's own query
 * checks the parent and its path once; only an empty page asks whether the parent is there (404).
 */
export async function listRecords(scope: Scope, collection: CollectionAddress, options: ListOptions): Promise<RecordPage> {
  const { resource, ancestors, linked, listedBy } = collection;
  // Under a linked record, that record is found first (404): it names the records listed.
  const linkedRow = linked === undefined ? undefined : await locateRecord(scope, linked.record);
  const owner = listedBy === undefined ? undefined : await locateRecord(scope, listedBy.record);
  const lookUp = () => locateParent(scope, ancestors);
  const found = await parentFirst(ancestors, lookUp, () => {
    const where: Condition[] = [];
    if (linked !== undefined && linkedRow !== undefined) {
      const link = resource.relationships[linked.relationship] as ToOne;
      where.push(sql<SqlBool>`${sql.ref(`r.${link.column}`)} = ${String(linkedRow.id)}`);
    }
    for (const filter of [options.filter, options.filtersByType.get(resource.type)]) {
      if (filter !== undefined) where.push(compileFilter(filter.expression, resource, 'r', filterContext(scope, filter)));
    }
    if (listedBy !== undefined && owner !== undefined) {
      // Records of any parent the owner lists: each one is checked whole, as any record read by id.
      where.push(listedByCondition(listedBy.relationship, String(owner.id)));
      return listVisible(scope, resource, { where, sort: options.sort, page: options.page });
    }
    // The rows need only their own checks: the parent is a range of an index.
    const known = { pathIds: pathIdsOf(ancestors), parentCheck: 'once' as const };
    return listVisible(scope, resource, { where, sort: options.sort, page: options.page, known });
  });
  if (found.rows.length === 0) await lookUp();
  const included = await loadIncluded(scope, resource, found.rows, options.include, options.filtersByType);
  return { ...found, resource, page: options.page, included };
}

/** One record the caller may see, with what the read asks to include. */
export async function readRecord(scope: Scope, address: RecordAddress, options: ReadOptions): Promise<RecordResult> {
  return withIncluded(scope, address.resource, await locateRecord(scope, address), options);
}

/** The record a to-one relationship of a visible record links, or null when it links none the caller may see. */
export async function readRelated(
  scope: Scope,
  address: RecordAddress,
  relationship: ToOne,
  options: ReadOptions,
): Promise<RecordResult | null> {
  const target = scope.engine.registry.target(relationship);
  const row = await locateRecord(scope, address);
  const id = row[relationship.column];
  const related = typeof id === 'string' ? await findVisible(scope, target, id) : undefined;
  return related === undefined ? null : withIncluded(scope, target, related, options);
}

/** A located record with the related records `options` ask to include. */
export async function withIncluded(scope: Scope, resource: ResourceDeclaration, row: Row, options: ReadOptions): Promise<RecordResult> {
  return { resource, row, included: await loadIncluded(scope, resource, [row], options.include, options.filtersByType) };
}

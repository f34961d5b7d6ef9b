import { sql, type SqlBool } from 'kysely';
import type { ResourceDeclaration, Row } from '../model/index.js';
import { ApiError } from '../errors.js';
import { allOf, type Condition } from '../store/conditions.js';
import { isSequenceId, isServerId, isUuid } from '../store/record-id.js';
import type { Scope } from './scope.js';
import { changeValueColumns, type ChangeRow } from './unit-of-work.js';
import { visibilityCondition, type KnownParents } from './visibility.js';
import { listOrder } from './order.js';
import { visibilityOf, type QueryShape } from './query-shapes.js';
import type { FilterContext } from '../rsql/compile.js';
import type { Filter, Page, SortKey } from './options.js';
import { rowBytesSql, rowsBytes, worstRowBytes } from './response-memory.js';

/**
 * Whether an id can name a record of a resource: a UUID, a number of its sequence, or an id of the
 * form its clients choose. Anything else names no record and need not be looked up. (Resources
 * whose clients choose ids have no children, so the ids of a path above a record are always ids
 * the server assigned.)
 */
export const canName = (resource: ResourceDeclaration, id: string): boolean =>
  resource.clientIds?.pattern.test(id) ?? (resource.sequenceIds === true ? isSequenceId(id) : isUuid(id));

/**
 * One visible record, or undefined when it does not exist or the caller may not see it. `lock`
 * (inside a write's transaction) holds the row until the commit, so concurrent writers of one record
 * take turns and each sees the version the one before it committed: what makes If-Match atomic on
 * PostgreSQL. SQLite runs one write transaction at a time already.
 */
export async function findVisible(
  scope: Scope,
  resource: ResourceDeclaration,
  id: string,
  options: { lock?: boolean; pathIds?: readonly string[] } = {},
): Promise<Row | undefined> {
  const pathIds = options.pathIds ?? [];
  if (!canName(resource, id) || !pathIds.every(isServerId)) return undefined;
  const lock = options.lock === true && scope.engine.store.dialect === 'postgres';
  const visibility = visibilityOf(scope.caller, pathIds);
  const shape: QueryShape = { kind: 'record', type: resource.type, lock, visibility: visibility.shape };
  const query = scope.engine.shapes.compiled<Row>(shape, [id, ...visibility.values]);
  return (await scope.db.executeQuery(query)).rows[0];
}

/** The parent a new record goes under: its resource, and the ids of its path from itself up. */
export interface ParentPath {
  resource: ResourceDeclaration;
  pathIds: readonly string[];
}

/**
 * Inserts one row and reads it back as stored: one statement, compiled once per set of columns.
 * `under` names a parent not looked up yet: the row is inserted only if the caller can see it at
 * that path (the parent's check and the write in one statement), and undefined comes back otherwise.
 */
export async function insertRow(
  scope: Scope,
  resource: ResourceDeclaration,
  columns: Row,
  under?: ParentPath,
  change?: ChangeRow,
): Promise<Row | undefined> {
  const given = Object.entries(columns).filter(([, value]) => value !== undefined);
  const names = given.map(([name]) => name);
  const values: unknown[] = given.map(([, value]) => value);
  let shape: QueryShape = { kind: 'insert', type: resource.type, columns: names, under: undefined };
  if (under !== undefined) {
    const [parentId, ...abovePath] = under.pathIds;
    const visibility = visibilityOf(scope.caller, abovePath);
    shape = { ...shape, under: { type: under.resource.type, visibility: visibility.shape } };
    values.push(parentId, ...visibility.values);
  }
  if (change !== undefined) {
    shape = { ...shape, recorded: true };
    values.push(...changeValueColumns.map((name) => change[name]));
  }
  return (await scope.db.executeQuery(scope.engine.shapes.compiled<Row>(shape, values))).rows[0];
}

export interface ListRequest {
  /** Conditions on the rows besides visibility: the parent from the path, filters. */
  where: Condition[];
  sort: SortKey[];
  page: Page;
  /** Only the ids (relationship linkage), or whole rows. */
  idsOnly?: boolean;
  /** What the request found out about the rows' parent already. */
  known?: KnownParents;
}

export interface ListResult {
  rows: Row[];
  /** More rows follow this page. */
  hasMore: boolean;
  total: number | undefined;
}

const pageTooLarge = (mebibytes: string, limit: string) =>
  new ApiError(400, {
    code: 'response_too_large',
    detail: `This page would hold about ${mebibytes} MiB of records, more than the ${limit} MiB one answer may hold; ask for a smaller page.`,
    at: { argument: 'page' },
  });

/** The query of one page of a list; `bounds` are the LIMIT (one more than the page holds) and OFFSET. */
function pageQuery(scope: Scope, resource: ResourceDeclaration, conditions: Condition, request: ListRequest, bounds: readonly unknown[]) {
  const order = listOrder(scope.engine, resource, request.sort, 'r');
  return scope.db
    .selectFrom(`${resource.table} as r`)
    .where(conditions)
    .orderBy(order)
    .limit(bounds[0] as number)
    .offset(bounds[1] as number);
}

/**
 * The rows of a page. An unfiltered page in creation order (the one every list starts with) runs as
 * a query compiled once per shape; a filtered or sorted one, whose SQL the caller shapes, is
 * compiled with its `conditions` each time and never kept.
 */
async function pageRows(scope: Scope, resource: ResourceDeclaration, request: ListRequest, conditions: () => Condition): Promise<Row[]> {
  const bounds = [request.page.limit + 1, request.page.offset];
  if (request.where.length > 0 || request.sort.length > 0) {
    const page = pageQuery(scope, resource, conditions(), request, bounds);
    return (request.idsOnly === true ? page.select('r.id') : page.selectAll('r')).execute();
  }
  const visibility = visibilityOf(scope.caller, request.known?.pathIds ?? []);
  const shape: QueryShape = {
    kind: 'page',
    type: resource.type,
    idsOnly: request.idsOnly === true,
    parentCheck: request.known?.parentCheck ?? 'row',
    visibility: visibility.shape,
  };
  return (await scope.db.executeQuery(scope.engine.shapes.compiled<Row>(shape, [...bounds, ...visibility.values]))).rows;
}

/**
 * One page of visible records. Without a sort, records come in creation order; the id always breaks
 * ties so that pages never overlap or skip a record. A page whose rows could outgrow the answer's
 * memory is measured in the database first, so an oversized page is refused before it is loaded.
 */
export async function listVisible(scope: Scope, resource: ResourceDeclaration, request: ListRequest): Promise<ListResult> {
  // Built only for what needs it: an unfiltered page runs from its compiled shape.
  let built: Condition | undefined;
  const conditions = () => (built ??= allOf([visibilityCondition(scope, resource, 'r', request.known), ...request.where]));
  const { limit } = request.page;
  let reserved = (limit + 1) * (request.idsOnly === true ? 64 : worstRowBytes(resource));
  if (reserved > scope.budget.remaining) {
    const page = pageQuery(scope, resource, conditions(), request, [limit + 1, request.page.offset]);
    const measured = await scope.db
      .selectFrom(page.select(rowBytesSql(resource, 'r').as('bytes')).as('page'))
      .select(sql<number | string>`coalesce(sum(${sql.ref('page.bytes')}), 0)`.as('bytes'))
      .executeTakeFirstOrThrow();
    reserved = Number(measured.bytes);
  }
  await scope.budget.reserve(reserved, pageTooLarge);
  const rows = await pageRows(scope, resource, request, conditions);
  scope.budget.settle(reserved, rowsBytes(rows));
  const hasMore = rows.length > limit;
  if (hasMore) rows.pop();
  let total: number | undefined;
  if (request.page.totals) {
    const counted = await scope.db
      .selectFrom(`${resource.table} as r`)
      .select(sql<number | string>`count(*)`.as('total'))
      .where(conditions())
      .executeTakeFirstOrThrow();
    total = Number(counted.total);
  }
  return { rows, hasMore, total };
}

/**
 * Visible records whose `column` holds one of `values`: the related records of an include, named
 * `relationship` in a refusal. Related records through a to-many relationship have no bound in
 * number, so their size is measured in the database before they are loaded.
 */
export async function findVisibleWhere(
  scope: Scope,
  resource: ResourceDeclaration,
  related: { column: string; values: readonly string[]; many: boolean; relationship: string },
  extra: Condition[] = [],
): Promise<Row[]> {
  if (related.values.length === 0) return [];
  const conditions = [
    sql<SqlBool>`${sql.ref(`r.${related.column}`)} in (${sql.join([...new Set(related.values)])})`,
    visibilityCondition(scope, resource, 'r'),
    ...extra,
  ];
  const matching = scope.db.selectFrom(`${resource.table} as r`).where(allOf(conditions));
  let reserved = related.values.length * worstRowBytes(resource);
  if (related.many || reserved > scope.budget.remaining) {
    const measured = await matching
      .select(sql<number | string>`coalesce(sum(${rowBytesSql(resource, 'r')}), 0)`.as('bytes'))
      .executeTakeFirstOrThrow();
    reserved = Number(measured.bytes);
  }
  await scope.budget.reserve(
    reserved,
    (mebibytes, limit) =>
      new ApiError(400, {
        code: 'response_too_large',
        detail: `The related ${related.relationship} records would hold about ${mebibytes} MiB, more than the ${limit} MiB one answer may hold; read them through their own list, a page at a time.`,
        at: { argument: 'include' },
      }),
  );
  const rows = await matching
    .selectAll('r')
    .orderBy(listOrder(scope.engine, resource, [], 'r'))
    .execute();
  scope.budget.settle(reserved, rowsBytes(rows));
  return rows;
}

/** What compiling a filter needs to know, for the scope's store. */
export function filterContext(scope: Scope, filter: Filter): FilterContext {
  return { registry: scope.engine.registry, dialect: scope.engine.store.dialect, parameter: filter.parameter };
}

import { sql, type CompiledQuery, type SqlBool } from 'kysely';
import type { ResourceDeclaration, Row } from '../model/index.js';
import { columnOf, isNeverNull } from '../model/index.js';
import { ApiError } from '../errors.js';
import { allOf, type Condition } from '../store/conditions.js';
import { isUuid } from '../store/record-id.js';
import type { Scope } from './scope.js';
import { visibilityCondition, type KnownParents } from './visibility.js';
import { tenancyShape } from '../policy/tenancy.js';
import type { FilterContext } from '../rsql/compile.js';
import type { Filter, Page, SortKey } from './options.js';
import { rowBytesSql, rowsBytes, worstRowBytes } from './response-memory.js';

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
  if (!isUuid(id) || !pathIds.every(isUuid)) return undefined;
  const lock = options.lock === true && scope.engine.store.dialect === 'postgres';
  const visible = visibilitySlots(scope, pathIds);
  const shape = `record ${resource.type}${lock ? ' locked' : ''} ${visible.key}`;
  const query = scope.engine.shapes.compiled<Row>(shape, [id, ...visible.values], ([idSlot, ...slots]) => {
    const filled = visible.fill(slots);
    const found = scope.db
      .selectFrom(`${resource.table} as r`)
      .selectAll('r')
      .where(sql<SqlBool>`${sql.ref('r.id')} = ${idSlot}`)
      .where(visibilityCondition(filled.scope, resource, 'r', { pathIds: filled.pathIds }));
    return lock ? found.forUpdate() : found;
  });
  return (await scope.db.executeQuery(query)).rows[0];
}

/** The parent a new record goes under: its resource, and the ids of its path from itself up. */
export interface ParentPath {
  resource: ResourceDeclaration;
  pathIds: readonly string[];
}

/**
 * The INSERT of one row that inserts it only if the caller can see the parent `under` names at its
 * path, returning the row as stored (no row when the parent is not there): the parent's check and
 * the write in one statement, compiled once per shape.
 */
export function insertUnder(
  scope: Scope,
  resource: ResourceDeclaration,
  row: { names: readonly string[]; values: readonly unknown[] },
  under: ParentPath,
): CompiledQuery<Row> {
  const { names, values } = row;
  const [parentId, ...abovePath] = under.pathIds;
  const visible = visibilitySlots(scope, abovePath);
  const shape = `insert ${resource.type} (${names.join(', ')}) under ${visible.key}`;
  return scope.engine.shapes.compiled<Row>(shape, [...values, parentId, ...visible.values], (slots) => {
    const filled = visible.fill(slots.slice(values.length + 1));
    const parent = scope.db
      .selectFrom(`${under.resource.table} as p`)
      .select(sql`1`.as('one'))
      .where(sql<SqlBool>`${sql.ref('p.id')} = ${slots[values.length]}`)
      .where(visibilityCondition(filled.scope, under.resource, 'p', { pathIds: filled.pathIds }));
    const given = scope.db.selectNoFrom(names.map((name, index) => sql`${slots[index]}`.as(name))).where((eb) => eb.exists(parent));
    return scope.db.insertInto(resource.table).columns(names).expression(given).returningAll();
  });
}

/**
 * The values a visibility condition takes (the ids of the path, the caller's groups), for a query
 * compiled once per shape: the part of the shape's key they decide, the values themselves, and the
 * scope and path a query is built from when slots stand in for them.
 */
function visibilitySlots(scope: Scope, pathIds: readonly string[]) {
  const { caller } = scope;
  return {
    key: `under ${pathIds.length} for ${tenancyShape(caller)}`,
    values: [...pathIds, ...caller.groups],
    fill: (slots: readonly unknown[]) => ({
      scope: { ...scope, caller: { ...caller, groups: slots.slice(pathIds.length) as string[] } },
      pathIds: slots.slice(0, pathIds.length) as string[],
    }),
  };
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

/**
 * The order of every list: the sort keys (creation time without any), then the id, in the direction
 * of the last key so that one index on (parent, attribute, id) serves both directions. Nulls sort as
 * the smallest value on both stores: SQLite does so by itself, PostgreSQL is told so for nullable
 * columns only, since an explicit NULLS order on a column that holds none keeps it from using a
 * plain index.
 */
export function listOrder(scope: Scope, resource: ResourceDeclaration, sort: readonly SortKey[], alias: string) {
  const keys: SortKey[] = sort.length > 0 ? [...sort] : [{ attribute: 'createdDate', descending: false }];
  if (!keys.some((k) => k.attribute === 'id')) keys.push({ attribute: 'id', descending: keys.at(-1)?.descending ?? false });
  const postgres = scope.engine.store.dialect === 'postgres';
  return sql.join(
    keys.map((k) => {
      const attribute = k.attribute === 'id' ? undefined : resource.attributes[k.attribute];
      const column = sql.ref(`${alias}.${attribute === undefined ? 'id' : columnOf(k.attribute)}`);
      const direction = k.descending ? sql`desc` : sql`asc`;
      if (!postgres || attribute === undefined || isNeverNull(attribute)) return sql`${column} ${direction}`;
      return k.descending ? sql`${column} desc nulls last` : sql`${column} asc nulls first`;
    }),
  );
}

/** The query of one page of a list; `bounds` are the LIMIT (one more than the page holds) and OFFSET. */
function pageQuery(scope: Scope, resource: ResourceDeclaration, conditions: Condition, request: ListRequest, bounds: readonly unknown[]) {
  const order = listOrder(scope, resource, request.sort, 'r');
  return scope.db
    .selectFrom(`${resource.table} as r`)
    .where(conditions)
    .orderBy(order)
    .limit(bounds[0] as number)
    .offset(bounds[1] as number);
}

/**
 * The rows of a page. An unfiltered page (the one every list starts with) runs as a query
 * compiled once per shape; a filtered one is compiled with its `conditions` each time.
 */
async function pageRows(scope: Scope, resource: ResourceDeclaration, request: ListRequest, conditions: () => Condition): Promise<Row[]> {
  const select = (shaped: Scope, where: Condition, bounds: readonly unknown[]) => {
    const page = pageQuery(shaped, resource, where, request, bounds);
    return request.idsOnly === true ? page.select('r.id') : page.selectAll('r');
  };
  const bounds = [request.page.limit + 1, request.page.offset];
  if (request.where.length > 0) return select(scope, conditions(), bounds).execute();
  const visible = visibilitySlots(scope, request.known?.pathIds ?? []);
  const sort = request.sort.map((key) => `${key.descending ? '-' : ''}${key.attribute}`).join(',');
  const checked = ` parent checked ${request.known?.parentCheck ?? 'row'}`;
  const shape = `page ${resource.type} by ${sort}${request.idsOnly === true ? ' ids' : ''}${checked} ${visible.key}`;
  const query = scope.engine.shapes.compiled<Row>(shape, [...bounds, ...visible.values], (slots) => {
    const filled = visible.fill(slots.slice(bounds.length));
    const known = { ...request.known, pathIds: filled.pathIds };
    return select(filled.scope, visibilityCondition(filled.scope, resource, 'r', known), slots.slice(0, bounds.length));
  });
  return (await scope.db.executeQuery(query)).rows;
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
    .orderBy(sql`${sql.ref('r.created_date')} asc, ${sql.ref('r.id')} asc`)
    .execute();
  scope.budget.settle(reserved, rowsBytes(rows));
  return rows;
}

/** What compiling a filter needs to know, for the scope's store. */
export function filterContext(scope: Scope, filter: Filter): FilterContext {
  return { registry: scope.engine.registry, dialect: scope.engine.store.dialect, parameter: filter.parameter };
}

import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Caller } from '../auth/caller.js';
import { readableOrganization } from '../auth/policy.js';
import type { Page, SortKey } from '../jsonapi/query.js';
import type { Database, Dialect, Row } from '../store/database.js';
import type { ResourceDeclaration, Resources, ToOne } from './declaration.js';
import { columnOf, declared } from './declaration.js';

/** What every query needs to know about the request it serves. */
export interface QueryScope {
  db: Kysely<Database>;
  caller: Caller;
  resources: Resources;
  dialect: Dialect;
}

type Condition = RawBuilder<SqlBool>;

const and = (conditions: Condition[]): Condition =>
  conditions.length === 0 ? sql<SqlBool>`1 = 1` : sql<SqlBool>`(${sql.join(conditions, sql` and `)})`;

/**
 * The rows of `resource` under `alias` that the caller may see: not soft-deleted, every ancestor
 * up to the organization visible too, and the organization readable by the caller. Every read goes
 * through this one predicate, inside its SQL, so pages and totals only ever count visible rows.
 */
export function visible(scope: QueryScope, resource: ResourceDeclaration, alias: string): Condition {
  const conditions: Condition[] = [];
  if (resource.softDelete !== undefined) conditions.push(sql<SqlBool>`${sql.ref(`${alias}.${columnOf(resource.softDelete)}`)} = 0`);
  if (resource.parent === undefined) {
    conditions.push(sql<SqlBool>`${readableOrganization(scope.caller, sql.ref(`${alias}.id`))}`);
    return and(conditions);
  }
  // The parent, and any other record that owns this one, must be visible too.
  const owners = Object.entries(resource.relationships).filter(
    (entry): entry is [string, ToOne] => entry[1].kind === 'toOne' && (entry[0] === resource.parent?.relationship || entry[1].owner),
  );
  for (const [name, link] of owners) {
    const owner = declared(scope.resources, link.type, resource.type);
    const ownerAlias = `${alias}_${name}`;
    conditions.push(
      sql<SqlBool>`exists (select 1 from ${sql.table(owner.table)} as ${sql.id(ownerAlias)} where ${sql.ref(`${ownerAlias}.id`)} = ${sql.ref(`${alias}.${link.column}`)} and ${visible(scope, owner, ownerAlias)})`,
    );
  }
  return and(conditions);
}

/** One visible record, or undefined when it does not exist or the caller may not see it. */
export async function findVisible(
  scope: QueryScope,
  resource: ResourceDeclaration,
  id: string,
  db: Kysely<Database> = scope.db,
): Promise<Row | undefined> {
  if (!isUuid(id)) return undefined;
  return db
    .selectFrom(`${resource.table} as r`)
    .selectAll('r')
    .where(sql<SqlBool>`${sql.ref('r.id')} = ${id}`)
    .where(visible(scope, resource, 'r'))
    .executeTakeFirst();
}

export interface ListRequest {
  /** Conditions on the rows besides visibility: the parent from the path, filters. */
  where: Condition[];
  sort: SortKey[];
  page: Page;
}

export interface ListResult {
  rows: Row[];
  /** More rows follow this page. */
  hasMore: boolean;
  total: number | undefined;
}

/**
 * One page of visible records. Without a sort, records come in creation order; the id always breaks
 * ties so that pages never overlap or skip a record.
 */
export async function listVisible(scope: QueryScope, resource: ResourceDeclaration, request: ListRequest): Promise<ListResult> {
  const conditions = and([visible(scope, resource, 'r'), ...request.where]);
  const keys: SortKey[] = request.sort.length > 0 ? [...request.sort] : [{ attribute: 'createdDate', descending: false }];
  if (!keys.some((k) => k.attribute === 'id')) keys.push({ attribute: 'id', descending: false });
  const order = sql.join(
    keys.map((k) => {
      const column = sql.ref(`r.${k.attribute === 'id' ? 'id' : columnOf(k.attribute)}`);
      // Nulls sort as the smallest value on both stores (PostgreSQL puts them last by default).
      return k.descending ? sql`${column} desc nulls last` : sql`${column} asc nulls first`;
    }),
  );
  const rows = await scope.db
    .selectFrom(`${resource.table} as r`)
    .selectAll('r')
    .where(conditions)
    .orderBy(order)
    .limit(request.page.limit + 1)
    .offset(request.page.offset)
    .execute();
  const hasMore = rows.length > request.page.limit;
  if (hasMore) rows.pop();
  let total: number | undefined;
  if (request.page.totals) {
    const counted = await scope.db
      .selectFrom(`${resource.table} as r`)
      .select(sql<number | string>`count(*)`.as('total'))
      .where(conditions)
      .executeTakeFirstOrThrow();
    total = Number(counted.total);
  }
  return { rows, hasMore, total };
}

/** Visible records whose `column` holds one of `values`: the related records of an include. */
export async function findVisibleWhere(
  scope: QueryScope,
  resource: ResourceDeclaration,
  column: string,
  values: readonly string[],
  extra: Condition[] = [],
): Promise<Row[]> {
  if (values.length === 0) return [];
  return scope.db
    .selectFrom(`${resource.table} as r`)
    .selectAll('r')
    .where(sql<SqlBool>`${sql.ref(`r.${column}`)} in (${sql.join([...new Set(values)])})`)
    .where(and([visible(scope, resource, 'r'), ...extra]))
    .orderBy(sql`${sql.ref('r.created_date')} asc, ${sql.ref('r.id')} asc`)
    .execute();
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Ids are lower-case UUIDs; anything else names no record. */
export function isUuid(id: string): boolean {
  return uuidPattern.test(id);
}

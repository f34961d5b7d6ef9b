import { sql, type SqlBool } from 'kysely';
import { ApiError } from '../errors.js';
import type { ListingRelationship, Row } from '../model/index.js';
import { compileFilter } from '../rsql/compile.js';
import { allOf, type Condition } from '../store/conditions.js';
import type { Scope } from './scope.js';
import type { ListOptions } from './options.js';
import { filterContext, type ListResult } from './queries.js';
import { listOrder } from './order.js';
import { visibilityCondition } from './visibility.js';
import { rowBytesSql, rowsBytes } from './response-memory.js';

/** What a page of related records asks for, the same for every owner: each owner's page counts that owner's records. */
export type RelatedRequest = Pick<ListOptions, 'filter' | 'sort' | 'page'>;

const position = 'stratum_position';
/** The owner of a row of a many-to-many relationship, whose row holds no link of its own. */
const ownerName = 'stratum_owner';

interface Measured {
  bytes: number | string;
}

/**
 * The records a to-many relationship lists for many owners at once (the workspaces of every
 * organization of a page), in one query whatever the number of owners: each owner gets its own
 * page, filtered, sorted and limited as a list of that owner alone would be, through a window over
 * the owner's rows. Related records go through the same visibility condition as any read, and
 * their size is measured first (one more query) against the memory of the answer. With totals, one
 * more query counts each owner's records. Owners with no visible record get an empty page.
 */
export async function listRelatedPages(
  scope: Scope,
  relationship: ListingRelationship,
  ownerIds: readonly string[],
  request: RelatedRequest,
): Promise<Map<string, ListResult>> {
  const pages = new Map<string, ListResult>();
  const owners = [...new Set(ownerIds)];
  for (const owner of owners) pages.set(owner, { rows: [], hasMore: false, total: request.page.totals ? 0 : undefined });
  if (owners.length === 0) return pages;

  const target = scope.engine.registry.target(relationship);
  // A many-to-many relationship's rows are its pairs', joined to the records they list.
  const pairs = relationship.kind === 'manyToMany' ? relationship.join : undefined;
  const ownerColumn = sql.ref(relationship.kind === 'manyToMany' ? `j.${relationship.join.column}` : `r.${relationship.column}`);
  const conditions: Condition[] = [sql<SqlBool>`${ownerColumn} in (${sql.join(owners)})`, visibilityCondition(scope, target, 'r')];
  if (request.filter !== undefined)
    conditions.push(compileFilter(request.filter.expression, target, 'r', filterContext(scope, request.filter)));
  const where = allOf(conditions);

  const { offset, limit } = request.page;
  const ranked = fromListed(scope, target.table, pairs)
    .where(where)
    .selectAll('r')
    .select(sql<string>`${ownerColumn}`.as(ownerName))
    .select(
      sql<number>`row_number() over (partition by ${ownerColumn} order by ${listOrder(scope.engine, target, request.sort, 'r')})`.as(
        position,
      ),
    );
  const pageOf = sql`${ranked} as ranked where ${sql.ref(`ranked.${position}`)} > ${offset} and ${sql.ref(`ranked.${position}`)} <= ${offset + limit + 1}`;

  // As the included records of a to-many relationship: their number has no useful bound (every
  // owner's page may be full), so their size is measured in the database before they are loaded.
  const size = sql<Measured>`select coalesce(sum(${rowBytesSql(target, 'ranked')}), 0) as bytes from ${pageOf}`;
  const reserved = Number((await size.execute(scope.db)).rows[0]?.bytes ?? 0);
  await scope.budget.reserve(reserved, (mebibytes, most) => tooLarge(relationship.type, mebibytes, most));
  const rows = sql<Row>`select * from ${pageOf} order by ${sql.ref(`ranked.${ownerName}`)}, ${sql.ref(`ranked.${position}`)}`;
  const loaded = await rows.execute(scope.db);
  scope.budget.settle(reserved, rowsBytes(loaded.rows));

  for (const { [position]: rank, [ownerName]: owner, ...row } of loaded.rows) {
    const page = pages.get(String(owner));
    if (page === undefined) continue;
    if (Number(rank) > offset + limit) page.hasMore = true;
    else page.rows.push(row);
  }
  if (request.page.totals) {
    const counts = await fromListed(scope, target.table, pairs)
      .where(where)
      .select([sql`${ownerColumn}`.as('owner'), sql<number | string>`count(*)`.as('total')])
      .groupBy(ownerColumn)
      .execute();
    countPerOwner(counts, pages);
  }
  return pages;
}

/** The listed records (`r`), joined to the pairs (`j`) that list them for a many-to-many relationship. */
function fromListed(scope: Scope, table: string, pairs: { table: string; otherColumn: string } | undefined) {
  const listed = scope.db.selectFrom(`${table} as r`);
  return pairs === undefined ? listed : listed.innerJoin(`${pairs.table} as j`, `j.${pairs.otherColumn}`, 'r.id');
}

function countPerOwner(counts: readonly { owner: unknown; total: number | string }[], pages: Map<string, ListResult>): void {
  for (const { owner, total } of counts) {
    const page = pages.get(String(owner));
    if (page !== undefined) page.total = Number(total);
  }
}

const tooLarge = (type: string, mebibytes: string, most: string) =>
  new ApiError(400, {
    code: 'response_too_large',
    detail: `These ${type} records would hold about ${mebibytes} MiB, more than the ${most} MiB one answer may hold; ask for a smaller page.`,
    at: { argument: 'page' },
  });

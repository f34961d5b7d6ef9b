import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { ApiError, type Place } from '../errors.js';
import type { ManyToMany, ResourceDeclaration, Row } from '../model/index.js';
import type { TenantId } from './create-plan.js';
import { organizationOf } from './changes.js';
import type { Scope } from './scope.js';
import { canName, findVisibleWhere } from './queries.js';
import { allOf } from '../store/conditions.js';
import { tenantIdOf } from './locate.js';
import { maxPageSize } from './options.js';
import { visibilityCondition } from './visibility.js';
import { checkLinkTarget } from './link-checks.js';

/**
 * The records a many-to-many relationship lists, kept as pairs in its own table: reading them, and
 * replacing them as a whole. A listed record is read as any record is, through its own visibility,
 * so one deleted or hidden since simply leaves the list.
 */

/** A condition on the listed records (aliased `alias`): listed by the record `ownerId`. */
export function listedBy(relationship: ManyToMany, ownerId: string, alias = 'r'): RawBuilder<SqlBool> {
  const { table, column, otherColumn } = relationship.join;
  return sql<SqlBool>`${sql.ref(`${alias}.id`)} in (select ${sql.ref(otherColumn)} from ${sql.table(table)} where ${sql.ref(column)} = ${ownerId})`;
}

/**
 * Every id names a record of the relationship's type that the caller can see in the tenant: found
 * in one query, however many; the first one that is not is refused as any missing link is.
 */
async function checkMembers(tx: Scope, link: ManyToMany, ids: readonly string[], tenantId: string, at: Place): Promise<void> {
  const target = tx.engine.registry.target(link);
  const nameable = ids.filter((id) => canName(target, id));
  // What finding a record's tenant reads of it: its id and its parent's.
  const parent = tx.engine.registry.parentLink(target);
  const found =
    nameable.length === 0
      ? []
      : await tx.db
          .selectFrom(`${target.table} as r`)
          .select(['r.id', ...(parent === undefined ? [] : [`r.${parent.column}`])])
          .where(allOf([sql<SqlBool>`${sql.ref('r.id')} in (${sql.join(nameable)})`, visibilityCondition(tx, target, 'r')]))
          .execute();
  const inTenant = new Set<string>();
  for (const row of found) if ((await tenantIdOf(tx, target, row)) === tenantId) inTenant.add(String(row.id));
  const missing = ids.find((id) => !inTenant.has(id));
  if (missing !== undefined) await checkLinkTarget(tx, link.type, missing, tenantId, at);
}

/** Replaces the lists a write's input sends for the many-to-many relationships of the record it wrote. */
export async function writeMembers(
  tx: Scope,
  written: { resource: ResourceDeclaration; row: Row },
  lists: Readonly<Record<string, readonly string[]>>,
  tenantId: TenantId,
): Promise<void> {
  for (const [name, ids] of Object.entries(lists)) {
    const link = written.resource.relationships[name];
    if (link?.kind !== 'manyToMany') continue;
    await replaceMembers(
      tx,
      { ...written, name, link },
      ids.map((id) => ({ id })),
      await tenantId(),
      await organizationOf(tx, written.resource, tenantId),
    );
  }
}

/** The pairs a many-to-many relationship holds for some owners: owner id to the ids it lists. */
async function pairsOf(scope: Scope, relationship: ManyToMany, ownerIds: readonly string[]): Promise<Map<string, Set<string>>> {
  const { table, column, otherColumn } = relationship.join;
  const pairs = new Map<string, Set<string>>();
  if (ownerIds.length === 0) return pairs;
  const rows = await scope.db
    .selectFrom(table)
    .select([sql`${sql.ref(column)}`.as('owner'), sql`${sql.ref(otherColumn)}`.as('member')])
    .where(sql<SqlBool>`${sql.ref(column)} in (${sql.join([...new Set(ownerIds)])})`)
    .execute();
  for (const { owner, member } of rows) {
    const members = pairs.get(String(owner)) ?? new Set<string>();
    members.add(String(member));
    pairs.set(String(owner), members);
  }
  return pairs;
}

/**
 * The visible records a many-to-many relationship lists for each of some owners, for an include:
 * one query for the pairs, one for the records, whatever the number of owners.
 */
export async function includedMembers(
  scope: Scope,
  relationship: { name: string; link: ManyToMany },
  ownerIds: readonly string[],
  extra: Parameters<typeof findVisibleWhere>[3] = [],
): Promise<{ rows: Row[]; byOwner: Map<string, string[]> }> {
  const target = scope.engine.registry.target(relationship.link);
  const pairs = await pairsOf(scope, relationship.link, ownerIds);
  const ids = [...new Set([...pairs.values()].flatMap((members) => [...members]))];
  const rows = await findVisibleWhere(scope, target, { column: 'id', values: ids, many: true, relationship: relationship.name }, extra);
  const byOwner = new Map<string, string[]>();
  for (const [owner, members] of pairs) {
    byOwner.set(
      owner,
      rows.filter((row) => members.has(String(row.id))).map((row) => String(row.id)),
    );
  }
  return { rows, byOwner };
}

/**
 * Replaces the records a many-to-many relationship of `row` lists, in the write's transaction: each
 * one named must be a record of the relationship's type (409) that the caller can see in the same
 * tenant (404 at the relationship, as any missing link); one named twice is listed once. Nothing is
 * written unless every one is found.
 */
export async function replaceMembers(
  tx: Scope,
  owner: { resource: ResourceDeclaration; row: Row; name: string; link: ManyToMany },
  members: readonly { type?: unknown; id: string }[],
  tenantId: string,
  organizationId: string | undefined,
): Promise<void> {
  const { name, link } = owner;
  const at: Place = { relationship: name, part: 'linkage' };
  for (const member of members) {
    if (member.type !== undefined && member.type !== link.type) {
      throw new ApiError(409, {
        code: 'type_mismatch',
        detail: `Relationship ${name} lists ${link.type} records.`,
        at: { relationship: name, part: 'type' },
      });
    }
  }
  const ids = [...new Set(members.map((member) => member.id))];
  if (ids.length > maxPageSize) {
    throw new ApiError(400, { code: 'invalid_document', detail: `Relationship ${name} lists at most ${maxPageSize} records.`, at });
  }
  await checkMembers(tx, link, ids, tenantId, at);
  const { table, column, otherColumn } = link.join;
  const ownerId = String(owner.row.id);
  const listed = await tx.db.selectFrom(table).select(otherColumn).where(column, '=', ownerId).execute();
  const before = listed.map((pair) => String(pair[otherColumn])).sort();
  const after = [...ids].sort();
  if (before.length !== after.length || before.some((id, index) => id !== after[index]))
    tx.work?.record({
      organizationId,
      type: owner.resource.type,
      id: ownerId,
      action: 'update',
      attributes: { [name]: { before, after } },
    });
  await tx.db.deleteFrom(table).where(column, '=', ownerId).execute();
  if (ids.length > 0) {
    await tx.db
      .insertInto(table)
      .values(ids.map((id) => ({ [column]: ownerId, [otherColumn]: id })))
      .execute();
  }
}

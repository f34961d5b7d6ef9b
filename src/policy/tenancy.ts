import { sql, type Expression, type SqlBool } from 'kysely';
import type { Caller } from '../auth/caller.js';
import { columnOf, type Registry } from '../model/index.js';
import { rowExists } from '../store/conditions.js';
import type { Dialect } from '../store/dialect.js';

/** Who reads, as far as read authorization asks: an administrator, or the member of some groups. */
export type Reader = Pick<Caller, 'isAdministrator' | 'groups'>;

/**
 * Which tenants the caller may read, as a SQL predicate on a tenant id column, so that read
 * authorization is part of every query and paging totals count only what the caller sees.
 *
 * Administrators read every tenant; anyone else reads those where one of its groups names a
 * membership record (a team).
 */
export function readableTenant(registry: Registry, caller: Reader, tenantId: Expression<unknown>, dialect: Dialect): Expression<SqlBool> {
  if (caller.isAdministrator) return sql<SqlBool>`1 = 1`;
  const membership = registry.membership;
  const link = membership === undefined ? undefined : registry.parentLink(membership.resource);
  if (membership === undefined || link === undefined || caller.groups.length === 0) return sql<SqlBool>`1 = 0`;
  const table = sql.table(membership.resource.table);
  const group = sql.ref(`member.${columnOf(membership.rules.groupAttribute)}`);
  return rowExists(
    dialect,
    sql`select 1 from ${table} as member where ${sql.ref(`member.${link.column}`)} = ${tenantId} and ${group} in (${sql.join(caller.groups)})`,
  );
}

/**
 * Whether the caller may read the records of a global resource, as a SQL predicate: a constant,
 * since the rule (a `ReadRule` of the policy table) sees only what the query's shape knows of the reader.
 */
export function readableGlobal(rule: { allows: (reader: ReaderShape) => boolean }, caller: Reader): Expression<SqlBool> {
  return rule.allows(readerShape(caller)) ? sql<SqlBool>`1 = 1` : sql<SqlBool>`1 = 0`;
}

/**
 * What of a reader changes the SQL text of `readableTenant`, besides values (the groups' names):
 * queries compiled once per shape name it in their shape.
 */
export interface ReaderShape {
  administrator: boolean;
  /** How many groups the condition names; none for an administrator, whom it does not ask about. */
  groups: number;
}

export const readerShape = (reader: Reader): ReaderShape =>
  reader.isAdministrator ? { administrator: true, groups: 0 } : { administrator: false, groups: reader.groups.length };

import { sql, type Expression, type SqlBool } from 'kysely';
import type { Caller } from '../auth/caller.js';
import { columnOf, type Registry, type ResourceDeclaration } from '../model/index.js';
import { anyOf, rowExists, type Condition } from '../store/conditions.js';
import type { Dialect } from '../store/dialect.js';

/** Who reads, as far as read authorization asks: an administrator, or the member of some groups. */
export type Reader = Pick<Caller, 'isAdministrator' | 'groups'>;

/**
 * Which tenants the caller may read, as a SQL predicate on a tenant id column, so that read
 * authorization is part of every query and paging totals count only what the caller sees.
 *
 * Administrators read every tenant; anyone else reads those where one of its groups names a
 * membership record (a team), with `flag` set when the records read are gated by one.
 */
export function readableTenant(
  registry: Registry,
  caller: Reader,
  tenantId: Expression<unknown>,
  dialect: Dialect,
  /** A boolean attribute of the membership that must be set, for records gated by it (`readFlag`). */
  flag?: string,
): Expression<SqlBool> {
  if (caller.isAdministrator) return sql<SqlBool>`1 = 1`;
  const membership = registry.membership;
  const link = membership === undefined ? undefined : registry.parentLink(membership.resource);
  if (membership === undefined || link === undefined || caller.groups.length === 0) return sql<SqlBool>`1 = 0`;
  const table = sql.table(membership.resource.table);
  const group = sql.ref(`member.${columnOf(membership.rules.groupAttribute)}`);
  const flagged = flag === undefined ? sql`` : sql` and ${sql.ref(`member.${columnOf(flag)}`)} = 1`;
  return rowExists(
    dialect,
    sql`select 1 from ${table} as member where ${sql.ref(`member.${link.column}`)} = ${tenantId} and ${group} in (${sql.join(caller.groups)})${flagged}`,
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
 * That one of the caller's groups holds a grant reaching the row `alias` of `resource` (a
 * workspace: a grant on it, or on its project), as a SQL predicate; undefined when no grant can
 * (administrators need none, a caller without groups holds none, most resources are reached by none).
 */
export function grantedRecord(
  registry: Registry,
  caller: Reader,
  resource: ResourceDeclaration,
  alias: string,
  dialect: Dialect,
): Condition | undefined {
  const reaches = registry.reachesOf(resource);
  const through = grantsThrough(registry, resource);
  if (caller.isAdministrator || caller.groups.length === 0 || (reaches.length === 0 && through === undefined)) return undefined;
  // A record that takes its grants through a link (a job): granted where the linked record is.
  const linked = through === undefined ? undefined : grantedRecord(registry, caller, through.resource, `${alias}_via`, dialect);
  const viaLink =
    through === undefined || linked === undefined
      ? []
      : [
          rowExists(
            dialect,
            sql`select 1 from ${sql.table(through.resource.table)} as ${sql.id(`${alias}_via`)} where ${sql.ref(`${alias}_via.id`)} = ${sql.ref(`${alias}.${through.column}`)} and ${linked}`,
          ),
        ];
  return anyOf([
    ...viaLink,
    ...reaches.map(({ grant, rules, column }) => {
      const grantAlias = `${alias}_${grant.table}`;
      const parentColumn = sql.ref(`${grantAlias}.${String(registry.parentLink(grant)?.column)}`);
      const group = sql.ref(`${grantAlias}.${columnOf(rules.groupAttribute)}`);
      return rowExists(
        dialect,
        sql`select 1 from ${sql.table(grant.table)} as ${sql.id(grantAlias)} where ${parentColumn} = ${sql.ref(`${alias}.${column}`)} and ${group} in (${sql.join(caller.groups)})`,
      );
    }),
  ]);
}

/** The record a resource takes its grants through (`grantsThrough`), and the column that links it. */
function grantsThrough(registry: Registry, resource: ResourceDeclaration): { resource: ResourceDeclaration; column: string } | undefined {
  const link = resource.grantsThrough === undefined ? undefined : registry.relationship(resource, resource.grantsThrough);
  return link?.kind === 'toOne' ? { resource: registry.target(link), column: link.column } : undefined;
}

/**
 * That one of the caller's groups holds a grant on a live record of the tenant `tenantId`: what lets
 * a caller outside its teams read the tenant record itself (and nothing else of it but what the
 * grants reach). Undefined when nothing can grant it.
 */
export function grantedInTenant(
  registry: Registry,
  caller: Reader,
  tenantId: Expression<unknown>,
  dialect: Dialect,
): Condition | undefined {
  if (caller.isAdministrator || caller.groups.length === 0 || registry.grants.length === 0) return undefined;
  return anyOf(
    registry.grants.map(({ resource, rules }) => {
      // The registry checked that a grant's parent lives directly in the tenant.
      const link = registry.parentLink(resource);
      const parent = registry.parentOf(resource);
      const tenantLink = parent === undefined ? undefined : registry.parentLink(parent);
      if (link === undefined || parent === undefined || tenantLink === undefined) throw new Error(`grant ${resource.type} has no parent`);
      const alive = parent.softDelete === undefined ? sql`` : sql` and ${sql.ref(`held_on.${columnOf(parent.softDelete)}`)} = 0`;
      const held = sql`${sql.table(resource.table)} as held join ${sql.table(parent.table)} as held_on on ${sql.ref('held_on.id')} = ${sql.ref(`held.${link.column}`)}`;
      const group = sql.ref(`held.${columnOf(rules.groupAttribute)}`);
      return rowExists(
        dialect,
        sql`select 1 from ${held} where ${sql.ref(`held_on.${tenantLink.column}`)} = ${tenantId}${alive} and ${group} in (${sql.join(caller.groups)})`,
      );
    }),
  );
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

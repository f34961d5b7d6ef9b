import { sql, type SqlBool } from 'kysely';
import { columnOf, type ResourceDeclaration } from '../model/index.js';
import { grantedInTenant, grantedRecord, readableGlobal, readableTenant, type Reader } from '../policy/tenancy.js';
import { allOf, anyOf, rowExists, type Condition } from '../store/conditions.js';
import type { ParentCheck } from './query-shapes.js';
import type { QueryBasis } from './scope.js';

/** Who reads, and what queries are built from: what a visibility condition needs. */
export interface Readers {
  engine: QueryBasis;
  caller: Reader;
}

/** What a query already knows about the rows' parents. */
export interface KnownParents {
  /**
   * The ids the path names for the parent, the grandparent and so on up: the condition then also
   * requires the row to sit under exactly those records, so the record and its whole path are found
   * in one query.
   */
  pathIds?: readonly string[];
  /**
   * How the parent's visibility is checked: for each row (the default); `once`, for the parent
   * `pathIds` names, in a condition that names no row, which the database evaluates once for the
   * whole query; or `done`, when this request found the parent visible already.
   */
  parentCheck?: ParentCheck;
}

/**
 * The condition that a row of `resource` under `alias` is one the caller may see: not
 * soft-deleted, every record it belongs to (its parent, and any other it is deleted with) visible
 * too, and its tenant readable by the caller, or, for a record grants reach (a workspace), the
 * record granted to one of the caller's groups (for a global record: its read rule allows the
 * caller). Every read goes through this one condition, inside its SQL, so pages and totals only
 * ever count visible rows.
 */
export function visibilityCondition(scope: Readers, resource: ResourceDeclaration, alias: string, known: KnownParents = {}): Condition {
  return visibleAs(scope, resource, alias, known, 'record');
}

/**
 * The condition that the row `alias` of `resource` may hold new records: it is visible, and, when it
 * is the tenant, the caller is one of its members (reading the tenant record through a grant alone
 * opens nothing else in it).
 */
export function parentVisibilityCondition(
  scope: Readers,
  resource: ResourceDeclaration,
  alias: string,
  known: KnownParents = {},
): Condition {
  return visibleAs(scope, resource, alias, known, 'owner');
}

/**
 * What a tenant row must be: readable as a record (by its members, and by anyone holding a grant on
 * something in it), the owner of rows that only its members read, or only alive, when the rows
 * under it ask for the membership or their own grant themselves.
 */
type TenantCheck = 'record' | 'owner' | 'alive';

function visibleAs(scope: Readers, resource: ResourceDeclaration, alias: string, known: KnownParents, tenantCheck: TenantCheck): Condition {
  const { registry } = scope.engine;
  const { dialect } = scope.engine.store;
  const { caller } = scope;
  const conditions: Condition[] = [];
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  if (resource.softDelete !== undefined) conditions.push(sql<SqlBool>`${column(columnOf(resource.softDelete))} = 0`);
  if (resource === registry.tenant) {
    const member = readableTenant(registry, caller, column('id'), dialect);
    const granted = tenantCheck === 'record' ? grantedInTenant(registry, caller, column('id'), dialect) : undefined;
    if (tenantCheck !== 'alive')
      conditions.push(granted === undefined ? sql<SqlBool>`${member}` : anyOf([sql<SqlBool>`${member}`, granted]));
    return allOf(conditions);
  }
  // A global record is in no tenant: its own rule says who reads it, besides the records it belongs to.
  const globalRule = scope.engine.policies.readRule(resource);
  if (globalRule !== undefined) conditions.push(sql<SqlBool>`${readableGlobal(globalRule, scope.caller)}`);
  const granted = grantedRecord(registry, caller, resource, alias, dialect);
  const [parentId, ...abovePath] = known.pathIds ?? [];
  for (const [name, link] of registry.belongsTo(resource)) {
    const isParent = name === resource.parent;
    if (isParent && parentId !== undefined) conditions.push(sql<SqlBool>`${column(link.column)} = ${parentId}`);
    // A parent checked once, or found visible already, needs no check per row: lists under it then
    // read as a range of an index instead of a join.
    const check = isParent ? (known.parentCheck ?? 'row') : 'row';
    const owner = registry.target(link);
    const ownerId = check !== 'row' && parentId !== undefined ? sql`${parentId}` : column(link.column);
    let ownerCheck: TenantCheck = 'owner';
    if (owner === registry.tenant && !caller.isAdministrator) {
      const member = readableTenant(registry, caller, ownerId, dialect, resource.readFlag);
      // Records any grant holder of the tenant reads (its templates), besides those granted this record.
      const anyGrant = resource.readByGrantHolders === true ? grantedInTenant(registry, caller, ownerId, dialect) : undefined;
      const alternatives = [granted, anyGrant].filter((condition) => condition !== undefined);
      if (alternatives.length > 0) {
        // Read by the tenant's members and by the groups granted this record: the tenant itself
        // need only be alive.
        conditions.push(anyOf([sql<SqlBool>`${member}`, ...alternatives]));
        ownerCheck = 'alive';
      } else if (check === 'done') {
        // Found visible as a record, the tenant may be so through a grant alone: its rows ask for the membership still.
        conditions.push(sql<SqlBool>`${member}`);
      } else if (resource.readFlag !== undefined) {
        // Read by the members of a flagged team alone: the membership asked here, the tenant need only be alive.
        conditions.push(sql<SqlBool>`${member}`);
        ownerCheck = 'alive';
      }
    }
    if (check === 'done') continue;
    const ownerAlias = `${alias}_${name}`;
    const ownerKnown = isParent ? { pathIds: abovePath } : {};
    const ownerVisible = rowExists(
      dialect,
      sql`select 1 from ${sql.table(owner.table)} as ${sql.id(ownerAlias)} where ${sql.ref(`${ownerAlias}.id`)} = ${ownerId} and ${visibleAs(scope, owner, ownerAlias, ownerKnown, ownerCheck)}`,
    );
    // A record that may link none (an organization-wide notification, of no workspace) is hidden by none then.
    conditions.push(isParent || link.required ? ownerVisible : anyOf([sql<SqlBool>`${column(link.column)} is null`, ownerVisible]));
  }
  return allOf(conditions);
}

import { sql, type SqlBool } from 'kysely';
import { columnOf, type ResourceDeclaration } from '../model/index.js';
import { readableGlobal, readableTenant, type Reader } from '../policy/tenancy.js';
import { allOf, rowExists, type Condition } from '../store/conditions.js';
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
 * too, and its tenant readable by the caller (for a global record: its read rule allows the
 * caller). Every read goes through this one condition, inside its SQL, so pages and totals only
 * ever count visible rows.
 */
export function visibilityCondition(scope: Readers, resource: ResourceDeclaration, alias: string, known: KnownParents = {}): Condition {
  const { registry } = scope.engine;
  const conditions: Condition[] = [];
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  if (resource.softDelete !== undefined) conditions.push(sql<SqlBool>`${column(columnOf(resource.softDelete))} = 0`);
  if (resource === registry.tenant) {
    conditions.push(sql<SqlBool>`${readableTenant(registry, scope.caller, column('id'), scope.engine.store.dialect)}`);
    return allOf(conditions);
  }
  // A global record is in no tenant: its own rule says who reads it, besides the records it belongs to.
  const globalRule = scope.engine.policies.readRule(resource);
  if (globalRule !== undefined) conditions.push(sql<SqlBool>`${readableGlobal(globalRule, scope.caller)}`);
  const [parentId, ...abovePath] = known.pathIds ?? [];
  for (const [name, link] of registry.belongsTo(resource)) {
    const isParent = name === resource.parent;
    if (isParent && parentId !== undefined) conditions.push(sql<SqlBool>`${column(link.column)} = ${parentId}`);
    // A parent checked once, or found visible already, needs no check per row: lists under it then
    // read as a range of an index instead of a join.
    const check = isParent ? (known.parentCheck ?? 'row') : 'row';
    if (check === 'done') continue;
    const owner = registry.target(link);
    const ownerAlias = `${alias}_${name}`;
    const ownerKnown = isParent ? { pathIds: abovePath } : {};
    const ownerId = check === 'once' && parentId !== undefined ? sql`${parentId}` : column(link.column);
    conditions.push(
      rowExists(
        scope.engine.store.dialect,
        sql`select 1 from ${sql.table(owner.table)} as ${sql.id(ownerAlias)} where ${sql.ref(`${ownerAlias}.id`)} = ${ownerId} and ${visibilityCondition(scope, owner, ownerAlias, ownerKnown)}`,
      ),
    );
  }
  return allOf(conditions);
}

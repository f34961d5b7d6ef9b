import type { ResourceDeclaration, Row } from '../model/index.js';
import { compileFilter } from '../rsql/compile.js';
import type { Scope } from './scope.js';
import type { Filter, IncludeTree } from './options.js';
import { filterContext, findVisibleWhere } from './queries.js';
import { includedMembers } from './members.js';

export interface IncludedRecord {
  resource: ResourceDeclaration;
  row: Row;
}

export interface IncludeResult {
  /** Related records to put in `included`, keyed by `type:id` so each appears once. */
  included: Map<string, IncludedRecord>;
  /** Ids of each included to-many relationship, keyed by the owner's `type:id`. */
  toMany: Map<string, Record<string, string[]>>;
}

export const recordKey = (type: string, id: unknown) => `${type}:${String(id)}`;

/**
 * Loads the records an `include` asks for, one query per relationship and level, whatever the
 * number of rows. Related records go through the same visibility predicate as any read, and a
 * `filter[TYPE]` narrows the included lists of that type.
 */
export async function loadIncluded(
  scope: Scope,
  resource: ResourceDeclaration,
  rows: readonly Row[],
  tree: IncludeTree,
  filtersByType: ReadonlyMap<string, Filter>,
  result: IncludeResult = { included: new Map(), toMany: new Map() },
): Promise<IncludeResult> {
  for (const [name, subtree] of Object.entries(tree)) {
    const relationship = scope.engine.registry.relationship(resource, name);
    if (relationship === undefined || rows.length === 0) continue;
    const target = scope.engine.registry.target(relationship);
    let related: Row[];
    if (relationship.kind === 'toOne') {
      const ids = rows.map((row) => row[relationship.column]).filter((id): id is string => typeof id === 'string');
      related = await findVisibleWhere(scope, target, { column: 'id', values: ids, many: false, relationship: name });
    } else {
      const filter = filtersByType.get(target.type);
      const extra = filter === undefined ? [] : [compileFilter(filter.expression, target, 'r', filterContext(scope, filter))];
      const owners = rows.map((row) => String(row.id));
      let byOwner: Map<string, string[]>;
      if (relationship.kind === 'manyToMany') {
        ({ rows: related, byOwner } = await includedMembers(scope, { name, link: relationship }, owners, extra));
      } else {
        const column = relationship.column;
        related = await findVisibleWhere(scope, target, { column, values: owners, many: true, relationship: name }, extra);
        byOwner = new Map<string, string[]>();
        for (const r of related) {
          const owner = String(r[column]);
          const ids = byOwner.get(owner);
          if (ids === undefined) byOwner.set(owner, [String(r.id)]);
          else ids.push(String(r.id));
        }
      }
      for (const row of rows) {
        const key = recordKey(resource.type, row.id);
        const links = result.toMany.get(key) ?? {};
        links[name] = byOwner.get(String(row.id)) ?? [];
        result.toMany.set(key, links);
      }
    }
    for (const row of related) result.included.set(recordKey(target.type, row.id), { resource: target, row });
    await loadIncluded(scope, target, related, subtree, filtersByType, result);
  }
  return result;
}

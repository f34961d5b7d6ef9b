import { sql } from 'kysely';
import { columnOf, isNeverNull, type ResourceDeclaration } from '../model/index.js';
import type { SortKey } from './options.js';
import type { QueryBasis } from './scope.js';

/**
 * The order of every list: the sort keys (creation time without any, or newest first by id), then the id, in the direction
 * of the last key so that one index on (parent, attribute, id) serves both directions. Nulls sort as
 * the smallest value on both stores: SQLite does so by itself, PostgreSQL is told so for nullable
 * columns only, since an explicit NULLS order on a column that holds none keeps it from using a
 * plain index.
 */
export function listOrder(parts: QueryBasis, resource: ResourceDeclaration, sort: readonly SortKey[], alias: string) {
  const keys: SortKey[] = sort.length > 0 ? [...sort] : [defaultOrder(resource)];
  if (!keys.some((k) => k.attribute === 'id')) keys.push({ attribute: 'id', descending: keys.at(-1)?.descending ?? false });
  const postgres = parts.store.dialect === 'postgres';
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

const creationOrder: SortKey = { attribute: 'createdDate', descending: false };
const newestFirst: SortKey = { attribute: 'id', descending: true };

const defaultOrder = (resource: ResourceDeclaration): SortKey => (resource.newestFirst === true ? newestFirst : creationOrder);

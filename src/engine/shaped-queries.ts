import { sql, type Compilable, type SqlBool } from 'kysely';
import type { Row } from '../model/index.js';
import { listOrder } from './order.js';
import type { QueryShape, VisibilityShape } from './query-shapes.js';
import type { QueryBasis } from './scope.js';
import { parentVisibilityCondition, visibilityCondition } from './visibility.js';
import { organizationOfRow } from './changes.js';
import { changeTable, changeValueColumns } from './unit-of-work.js';

/** Builds the query of a shape with `values` in their places: the values themselves, or the slots they go into. */
export function buildShape(parts: QueryBasis, shape: QueryShape, values: readonly unknown[]): Compilable<Row> {
  const { db } = parts.store;
  const { registry } = parts;
  const resource = registry.get(shape.type);
  if (resource === undefined) throw new Error(`a query shape of an undeclared type ${shape.type}`);
  switch (shape.kind) {
    case 'record': {
      const [id, ...rest] = values;
      const visible = visibilityIn(parts, shape.visibility, rest);
      const found = db
        .selectFrom(`${resource.table} as r`)
        .selectAll('r')
        .where(sql<SqlBool>`${sql.ref('r.id')} = ${id}`)
        .where(visibilityCondition(visible.scope, resource, 'r', { pathIds: visible.pathIds }));
      return shape.lock ? found.forUpdate() : found;
    }
    case 'insert': {
      const { columns, under } = shape;
      const change = shape.recorded === true ? values.slice(values.length - changeValueColumns.length) : undefined;
      const own = change === undefined ? values : values.slice(0, values.length - changeValueColumns.length);
      let insert;
      if (under === undefined) {
        insert = db
          .insertInto(resource.table)
          .values(Object.fromEntries(columns.map((name, index) => [name, own[index]])))
          .returningAll();
      } else {
        const parent = registry.get(under.type);
        if (parent === undefined) throw new Error(`a query shape of an undeclared type ${under.type}`);
        const [parentId, ...rest] = own.slice(columns.length);
        const visible = visibilityIn(parts, under.visibility, rest);
        const parentVisible = db
          .selectFrom(`${parent.table} as p`)
          .select(sql`1`.as('one'))
          .where(sql<SqlBool>`${sql.ref('p.id')} = ${parentId}`)
          .where(parentVisibilityCondition(visible.scope, parent, 'p', { pathIds: visible.pathIds }));
        const given = db.selectNoFrom(columns.map((name, index) => sql`${own[index]}`.as(name))).where((eb) => eb.exists(parentVisible));
        insert = db.insertInto(resource.table).columns(columns).expression(given).returningAll();
      }
      if (change === undefined) return insert;
      if (parts.store.dialect !== 'postgres') throw new Error('an INSERT with its change row is one statement on PostgreSQL alone');
      // The inserted row is not visible to the rest of the statement: its organization is read
      // from its own columns and its parents'.
      const organization = organizationOfRow(registry, resource, (name) => sql.ref(`inserted.${name}`));
      return db
        .with('inserted', () => insert)
        .with('recorded', (w) =>
          w
            .insertInto(changeTable)
            .columns([...changeValueColumns, 'organization_id', 'record_id'])
            .expression(
              w
                .selectFrom('inserted')
                .select([
                  ...changeValueColumns.map((name, index) => sql`${change[index]}`.as(name)),
                  sql`${organization}`.as('organization_id'),
                  sql`${sql.ref('inserted.id')}`.as('record_id'),
                ]),
            ),
        )
        .selectFrom('inserted')
        .selectAll();
    }
    case 'page': {
      const [limit, offset, ...rest] = values;
      const visible = visibilityIn(parts, shape.visibility, rest);
      const known = { pathIds: visible.pathIds, parentCheck: shape.parentCheck };
      const page = db
        .selectFrom(`${resource.table} as r`)
        .where(visibilityCondition(visible.scope, resource, 'r', known))
        .orderBy(listOrder(parts, resource, [], 'r'))
        .limit(limit as number)
        .offset(offset as number);
      return shape.idsOnly ? page.select('r.id') : page.selectAll('r');
    }
  }
}

/** What a visibility condition is built from when `values` stand in for a path's ids and a reader's groups. */
function visibilityIn(parts: QueryBasis, shape: VisibilityShape, values: readonly unknown[]) {
  const groups = shape.reader.administrator ? [] : (values.slice(shape.depth, shape.depth + shape.reader.groups) as string[]);
  return {
    scope: { engine: parts, caller: { isAdministrator: shape.reader.administrator, groups } },
    pathIds: values.slice(0, shape.depth) as string[],
  };
}

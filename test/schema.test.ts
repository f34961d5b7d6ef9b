import assert from 'node:assert/strict';
import { it } from 'node:test';
import { columnOf, isNeverNull, type Attribute, type ResourceDeclaration } from '../src/model/index.ts';
import { registry } from '../src/resources/index.ts';
import { describeEachStore, type StoreKind, type TestServer } from './harness.ts';

/** What the migrated schema holds for one table, read the same way on both stores. */
interface TableShape {
  columns: Map<string, { notNull: boolean; defaultValue: string | null }>;
  primaryKey: string[];
  unique: Set<string>;
  /** The columns of each index that is not unique. */
  plain: Set<string>;
  foreignKeys: Set<string>;
}

const describeUnique = (columns: readonly string[], predicate: string | null) =>
  `(${columns.join(', ')})${predicate === null ? '' : ` where ${predicate}`}`;
const describeForeignKey = (column: string, table: string, onDelete: string) =>
  `${column} -> ${table}.id on delete ${onDelete.toLowerCase()}`;
/** `(("deleted" = 0))`, `deleted = 0` -> `deleted = 0` */
const normalizePredicate = (text: string) => text.replace(/["()]/g, '').replace(/\s+/g, ' ').trim();
/** `'NeverExecuted'::text`, `0` -> `NeverExecuted`, `0` */
const normalizeDefault = (text: string | null) => (text === null ? null : text.replace(/::[\w\s"]+$/, '').replace(/^'(.*)'$/, '$1'));

async function readSqlite(server: TestServer, table: string): Promise<TableShape> {
  const columns = await server.query('select name, "notnull" as not_null, dflt_value, pk from pragma_table_info($1)', [table]);
  const plain = new Set<string>();
  for (const { name } of await server.query(`select name from pragma_index_list($1) where "unique" = 0`, [table])) {
    plain.add((await server.query('select name from pragma_index_info($1) order by seqno', [name])).map((c) => String(c.name)).join(', '));
  }
  const indexes = await server.query(`select name from pragma_index_list($1) where "unique" = 1 and origin != 'pk'`, [table]);
  const unique = new Set<string>();
  for (const { name } of indexes) {
    const indexColumns = await server.query('select name from pragma_index_info($1) order by seqno', [name]);
    const [definition] = await server.query(`select sql from sqlite_master where type = 'index' and name = $1`, [name]);
    const predicate = /\swhere\s(.+)$/i.exec((definition?.sql as string | undefined) ?? '')?.[1];
    unique.add(
      describeUnique(
        indexColumns.map((c) => String(c.name)),
        predicate === undefined ? null : normalizePredicate(predicate),
      ),
    );
  }
  const foreignKeys = await server.query('select "from" as source, "table" as target, on_delete from pragma_foreign_key_list($1)', [table]);
  return {
    columns: new Map(
      columns.map((c) => [
        String(c.name),
        { notNull: Number(c.not_null) === 1, defaultValue: normalizeDefault(c.dflt_value as string | null) },
      ]),
    ),
    primaryKey: columns.filter((c) => Number(c.pk) > 0).map((c) => String(c.name)),
    unique,
    plain,
    foreignKeys: new Set(foreignKeys.map((f) => describeForeignKey(String(f.source), String(f.target), String(f.on_delete)))),
  };
}

async function readPostgres(server: TestServer, table: string): Promise<TableShape> {
  const columns = await server.query(
    `select column_name as name, is_nullable = 'NO' as not_null, column_default from information_schema.columns where table_schema = 'public' and table_name = $1`,
    [table],
  );
  const indexes = await server.query(
    `select array_to_string(array(select a.attname from unnest(x.indkey) with ordinality as k(attnum, n)
              join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum order by k.n), ',') as columns,
            pg_get_expr(x.indpred, x.indrelid) as predicate, x.indisprimary as primary, x.indisunique as unique
       from pg_index x join pg_class t on t.oid = x.indrelid
      where t.relname = $1`,
    [table],
  );
  const foreignKeys = await server.query(
    `select kcu.column_name as source, ccu.table_name as target, rc.delete_rule as on_delete
       from information_schema.referential_constraints rc
       join information_schema.key_column_usage kcu on kcu.constraint_name = rc.constraint_name
       join information_schema.constraint_column_usage ccu on ccu.constraint_name = rc.constraint_name
      where kcu.table_name = $1`,
    [table],
  );
  const columnsOf = (index: Record<string, unknown>) => String(index.columns).split(',');
  return {
    columns: new Map(
      columns.map((c) => [
        String(c.name),
        { notNull: c.not_null === true, defaultValue: normalizeDefault(c.column_default as string | null) },
      ]),
    ),
    primaryKey: indexes.filter((i) => i.primary === true).flatMap(columnsOf),
    plain: new Set(indexes.filter((i) => i.unique !== true).map((i) => columnsOf(i).join(', '))),
    unique: new Set(
      indexes
        .filter((i) => i.primary !== true && i.unique === true)
        .map((i) => describeUnique(columnsOf(i), i.predicate === null ? null : normalizePredicate(i.predicate as string))),
    ),
    foreignKeys: new Set(foreignKeys.map((f) => describeForeignKey(String(f.source), String(f.target), String(f.on_delete)))),
  };
}

/** The column default the schema must hold for an attribute, or undefined when the engine supplies it. */
function schemaDefault(attribute: Attribute): string | undefined {
  if (attribute.kind === 'boolean') return attribute.default ? '1' : '0';
  if (attribute.kind === 'integer') return String(attribute.default);
  return undefined;
}

function expectedShape(resource: ResourceDeclaration) {
  const parentLink = registry.parentLink(resource);
  const toOne = Object.values(resource.relationships).flatMap((r) => (r.kind === 'toOne' ? [r] : []));
  const scope = parentLink === undefined ? [] : [parentLink.column];
  const predicate = resource.softDelete === undefined ? null : `${columnOf(resource.softDelete)} = 0`;
  return {
    // An attribute that holds a link's id shares the link's column.
    columns: [...new Set(['id', ...Object.keys(resource.attributes).map(columnOf), ...toOne.map((r) => r.column)])].sort(),
    unique: new Set([
      ...(resource.unique ?? []).map((name) => describeUnique([...scope, columnOf(name)], predicate)),
      // A record of which its owner holds one at most (a workspace's webhook) is unique by the owner's key.
      ...[...registry.all()]
        .flatMap((owner) => Object.values(owner.relationships))
        .flatMap((r) =>
          r.kind === 'toMany' && r.atMostOne === true && r.type === resource.type ? [describeUnique([r.column], null)] : [],
        ),
    ]),
    // The default order of every list, and the lists the declaration promises to serve fast.
    // (A list of no parent newest first reads the primary key.)
    plain: [resource.newestFirst === true ? [] : ['createdDate'], ...(resource.indexes ?? [])]
      .map((names) => [...scope, ...names.map(columnOf), 'id'].join(', '))
      .filter((index) => index !== 'id'),
    // A link the record outlives (a change of an organization since deleted) has no foreign key.
    foreignKeys: new Set(
      toOne.flatMap((r) => (r.onDelete === 'keep' ? [] : [describeForeignKey(r.column, registry.target(r).table, r.onDelete)])),
    ),
  };
}

function compare(kind: StoreKind, resource: ResourceDeclaration, actual: TableShape): string[] {
  const problems: string[] = [];
  const where = `${kind} ${resource.table}`;
  const expected = expectedShape(resource);
  assert.deepEqual([...actual.columns.keys()].sort(), expected.columns, `${where}: columns`);
  assert.deepEqual(actual.primaryKey, ['id'], `${where}: primary key`);
  assert.deepEqual([...actual.unique].sort(), [...expected.unique].sort(), `${where}: unique keys`);
  assert.deepEqual([...actual.foreignKeys].sort(), [...expected.foreignKeys].sort(), `${where}: foreign keys`);
  for (const index of expected.plain) if (!actual.plain.has(index)) problems.push(`${where} has no index on (${index})`);
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    const column = actual.columns.get(columnOf(name));
    if (column === undefined) continue;
    if (isNeverNull(attribute) && !column.notNull) problems.push(`${where}.${columnOf(name)} may hold null, but ${name} never is`);
    const fallback = schemaDefault(attribute);
    if (fallback !== undefined && column.defaultValue !== fallback) {
      problems.push(`${where}.${columnOf(name)} defaults to ${String(column.defaultValue)}, but ${name} to ${fallback}`);
    }
    const declared = attribute.kind === 'text' || attribute.kind === 'enum' ? attribute.default : undefined;
    if (column.defaultValue !== null && fallback === undefined && column.defaultValue !== declared) {
      problems.push(`${where}.${columnOf(name)} defaults to ${column.defaultValue}, but ${name} to ${String(declared)}`);
    }
  }
  const parentLink = registry.parentLink(resource);
  if (parentLink !== undefined && parentLink.onDelete !== 'keep' && actual.columns.get(parentLink.column)?.notNull !== true)
    problems.push(`${where}.${parentLink.column} may be null`);
  return problems;
}

describeEachStore('the migrated schema matches the declarations', (context) => {
  for (const resource of registry.all()) {
    it(`${resource.table}: columns, defaults, unique keys and on-delete behaviour`, async () => {
      const { kind, server } = context;
      const actual = kind === 'sqlite' ? await readSqlite(server, resource.table) : await readPostgres(server, resource.table);
      assert.deepEqual(compare(kind, resource, actual), []);
    });
    for (const [name, relationship] of Object.entries(resource.relationships)) {
      if (relationship.kind !== 'manyToMany') continue;
      const { table, column, otherColumn } = relationship.join;
      it(`${table}: the pairs of ${resource.type}.${name}, one per pair, deleted with either side`, async () => {
        const { kind, server } = context;
        const actual = kind === 'sqlite' ? await readSqlite(server, table) : await readPostgres(server, table);
        assert.deepEqual([...actual.columns.keys()].sort(), [column, otherColumn].sort());
        assert.ok([...actual.columns.values()].every((c) => c.notNull));
        assert.deepEqual(actual.primaryKey, [column, otherColumn]);
        assert.deepEqual(
          actual.foreignKeys,
          new Set([
            describeForeignKey(column, resource.table, 'cascade'),
            describeForeignKey(otherColumn, registry.target(relationship).table, 'cascade'),
          ]),
        );
      });
    }
  }
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sql, type Compilable } from 'kysely';
import { compileOnly } from './compile-only.ts';
import type { QueryShape, VisibilityShape } from '../src/engine/query-shapes.ts';
import type { QueryBasis } from '../src/engine/scope.ts';
import { buildShape } from '../src/engine/shaped-queries.ts';
import { changeValueColumns } from '../src/engine/unit-of-work.ts';
import { attributeFields, type ResourceDeclaration } from '../src/model/index.ts';
import { PolicyTable } from '../src/policy/rules.ts';
import { recordPolicies, registry, tokenPolicies } from '../src/resources/index.ts';
import type { Dialect } from '../src/store/database.ts';
import { QueryShapes } from '../src/store/query-shapes.ts';

/** How many records a record's path names above it, up to the tenant. */
function depthOf(resource: ResourceDeclaration): number {
  let depth = 0;
  for (let at = registry.parentOf(resource); at !== undefined; at = registry.parentOf(at)) depth++;
  return depth;
}

const member = (depth: number): VisibilityShape => ({ depth, reader: { administrator: false, groups: 2 } });
const administrator = (depth: number): VisibilityShape => ({ depth, reader: { administrator: true, groups: 0 } });

/** The shapes each resource's hot queries take: a read and a locked read by id and path, a create under its parent, a page. */
function shapesOf(resource: ResourceDeclaration, dialect: Dialect): QueryShape[] {
  const type = resource.type;
  const depth = depthOf(resource);
  const parent = registry.parentOf(resource);
  const link = registry.parentLink(resource);
  const columns = ['id', ...(link === undefined ? [] : [link.column]), ...attributeFields(resource).map((field) => field.column)];
  return [
    { kind: 'record', type, lock: false, visibility: member(depth) },
    { kind: 'record', type, lock: true, visibility: member(depth) },
    { kind: 'record', type, lock: false, visibility: administrator(depth) },
    {
      kind: 'insert',
      type,
      columns,
      under: parent === undefined ? undefined : { type: parent.type, visibility: member(depth - 1) },
    },
    // On PostgreSQL a create writes its change row in the INSERT's own statement.
    ...(dialect === 'postgres'
      ? [
          {
            kind: 'insert',
            type,
            columns,
            under: parent === undefined ? undefined : { type: parent.type, visibility: member(depth - 1) },
            recorded: true,
          } as const,
        ]
      : []),
    { kind: 'page', type, idsOnly: false, parentCheck: depth === 0 ? 'row' : 'once', visibility: member(depth) },
    { kind: 'page', type, idsOnly: true, parentCheck: 'done', visibility: member(0) },
  ];
}

/** Values for a shape, in the order of its slots, each distinct and made from `seed`. */
function valuesOf(shape: QueryShape, seed: string): unknown[] {
  const visibility = (v: VisibilityShape) => [
    ...Array.from({ length: v.depth }, (_, i) => `${seed}-path-${i}`),
    ...Array.from({ length: v.reader.groups }, (_, i) => `${seed}-group-${i}`),
  ];
  switch (shape.kind) {
    case 'record':
      return [`${seed}-id`, ...visibility(shape.visibility)];
    case 'insert':
      return [
        ...shape.columns.map((column) => `${seed}-${column}`),
        ...(shape.under === undefined ? [] : [`${seed}-parent`, ...visibility(shape.under.visibility)]),
        ...(shape.recorded === true ? changeValueColumns.map((column) => `${seed}-change-${column}`) : []),
      ];
    case 'page':
      return [seed.length + 1, seed.length * 100, ...visibility(shape.visibility)];
  }
}

type Build = (shape: QueryShape, values: readonly unknown[]) => Compilable;

/** The SQL of a shape, once it is shown that its values never reach the text and its slots take them in their places. */
function checkedSql(build: Build, shape: QueryShape): string {
  const what = JSON.stringify(shape);
  const shapes = new QueryShapes<QueryShape>({ prepare: () => undefined }, build);
  const [first, second] = ['a', 'bb'].map((seed) => build(shape, valuesOf(shape, seed)).compile());
  assert.ok(first !== undefined && second !== undefined);
  assert.equal(first.sql, second.sql, `${what}: the values change the text`);
  assert.deepEqual(shapes.compiled(shape, valuesOf(shape, 'a')).parameters, first.parameters, what);
  assert.deepEqual(shapes.compiled(shape, valuesOf(shape, 'bb')).parameters, second.parameters, what);
  return first.sql;
}

function render(dialect: Dialect): string {
  const policies = new PolicyTable(registry, recordPolicies, tokenPolicies);
  const basis: QueryBasis = { registry, policies, store: { db: compileOnly(dialect), dialect } };
  const build: Build = (shape, values) => buildShape(basis, shape, values);
  const texts: string[] = [];
  for (const resource of registry.all()) {
    for (const shape of shapesOf(resource, dialect)) texts.push(`-- ${JSON.stringify(shape)}\n${checkedSql(build, shape)}\n`);
  }
  return texts.join('\n');
}

const snapshots = path.join(path.dirname(fileURLToPath(import.meta.url)), 'snapshots');

describe('query shapes', () => {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    it(`build the same SQL whatever the values, the reviewed SQL on ${dialect}`, () => {
      const file = path.join(snapshots, `shapes-${dialect}.sql`);
      const actual = render(dialect);
      if (process.env.UPDATE_SNAPSHOTS === '1') fs.writeFileSync(file, actual);
      assert.equal(actual, fs.readFileSync(file, 'utf8'));
    });
  }

  it('notices a value built into the text, so the check above can fail', () => {
    const db = compileOnly('sqlite');
    const shape: QueryShape = { kind: 'record', type: 'organization', lock: false, visibility: member(0) };
    const leaky: Build = (_shape, values) =>
      db
        .selectFrom('organization')
        .selectAll()
        .where('name', '=', sql.lit(String(values[0])));
    assert.throws(() => checkedSql(leaky, shape), /the values change the text/);
  });
});

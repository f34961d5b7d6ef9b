import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compileOnly } from './compile-only.ts';
import { registry } from '../src/resources/index.ts';
import { compileFilter } from '../src/rsql/compile.ts';
import { parseFilter } from '../src/rsql/parse.ts';
import type { Dialect } from '../src/store/database.ts';

/** The SQL the RSQL compiler emits, kept in review: a change to it shows up as a snapshot diff. */
const filters: [type: string, rsql: string][] = [
  ['organization', 'name==acme'],
  ['organization', 'name==acme*'],
  ['organization', "name=='a_b%c[d?*'"],
  ['organization', 'name!=acme'],
  ['organization', 'name=in=(a,b);disabled==false'],
  ['organization', 'name=out=(a,b),description=isnull=true'],
  ['organization', 'name=ini=(Acme,ACME)'],
  ['organization', 'createdDate=ge=2026-01-01;createdDate=lt=2026-02-01T00:00:00Z'],
  ['organization', 'id==00000000-0000-4000-8000-000000000000'],
  ['template', 'organization.name==acme;name==Plan*'],
  ['template', '(name==a,name==b);(version=isnull=false,description!=x)'],
];

function render(dialect: Dialect): string {
  const db = compileOnly(dialect);
  return filters
    .map(([type, rsql]) => {
      const resource = registry.get(type);
      if (resource === undefined) throw new Error(`no resource ${type}`);
      const condition = compileFilter(parseFilter('filter', rsql), resource, 'r', { registry, dialect, parameter: 'filter' });
      const query = db.selectFrom(`${resource.table} as r`).select('r.id').where(condition).compile();
      return `-- ${type}: ${rsql}\n${query.sql}\n-- parameters: ${JSON.stringify(query.parameters)}\n`;
    })
    .join('\n');
}

const snapshots = path.join(path.dirname(fileURLToPath(import.meta.url)), 'snapshots');

describe('RSQL to SQL', () => {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    it(`emits the reviewed SQL for ${dialect}`, () => {
      const file = path.join(snapshots, `rsql-${dialect}.sql`);
      const actual = render(dialect);
      if (process.env.UPDATE_SNAPSHOTS === '1') fs.writeFileSync(file, actual);
      assert.equal(actual, fs.readFileSync(file, 'utf8'));
    });
  }
});

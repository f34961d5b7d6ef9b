import assert from 'node:assert/strict';
import path from 'node:path';
import { before, after, it } from 'node:test';
import Sqlite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import { Engine } from '../src/engine/index.ts';
import type { Database } from '../src/model/index.ts';
import { registry, tokenPolicies, recordPolicies } from '../src/resources/index.ts';
import { createCollection, createOrganization, createRecord, describeEachStore, eventually, type TestServer } from './harness.ts';

const items = 40_000;

/** Fills a collection with generated items in one statement: a quarter of keys per environment, two thirds ENV. */
async function fillCollection(server: TestServer, collection: string): Promise<void> {
  const generate =
    server.kind === 'sqlite'
      ? `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${items})`
      : `with n(i) as (select generate_series(1, ${items}))`;
  const environment = `case i % 4 when 0 then 'PROD' when 1 then 'STAGE' when 2 then 'DEV' else 'TEST' end`;
  await server.execute(
    `${generate}
     insert into item (id, collection_id, key, value, category, sensitive, hcl, created_by, created_date, updated_by, updated_date)
     select $1 || '-' || i, $2, ${environment} || '_SETTING_' || i, 'v', case when i % 3 = 0 then 'TERRAFORM' else 'ENV' end, 0, 0,
            'seed', '2025-01-01T00:00:00.000Z', 'seed', '2025-' || substr('0' || (1 + i % 12), -2) || '-01T00:00:' || substr('0' || (i % 60), -2) || '.000Z'
     from n`,
    [`seeded-${collection}`, collection],
  );
  // Statistics, and on PostgreSQL the visibility map an index-only count relies on.
  await server.execute(server.kind === 'sqlite' ? 'analyze' : 'vacuum analyze item');
}

/** The engine over the test server's database, with every statement it runs written down. */
function engineOver(server: TestServer, statements: LogEvent['query'][]): { engine: Engine; close: () => Promise<void> } {
  const log = (event: LogEvent) => {
    if (event.level === 'query') statements.push(event.query);
  };
  const dialect =
    server.kind === 'sqlite'
      ? new SqliteDialect({ database: new Sqlite(path.join(server.env.STRATUM_DATA_DIR ?? '', 'stratum.db'), { readonly: true }) })
      : new PostgresDialect({ pool: new pg.Pool({ connectionString: server.env.DATABASE_URL, max: 1 }) });
  const db = new Kysely<Database>({ dialect, log });
  const store = {
    db,
    dialect: server.kind,
    ping: () => Promise.resolve(),
    poolUse: () => ({ open: 1, idle: 1, waiting: 0, max: 1 }),
    prepare: () => undefined,
    close: () => db.destroy(),
  };
  const engine = new Engine({
    registry,
    recordPolicies,
    tokenPolicies,
    apiTokens: undefined,
    store,
    cipher: undefined,
    responseMemory: { perAnswer: 32 * 2 ** 20, total: 128 * 2 ** 20 },
  });
  return { engine, close: () => db.destroy() };
}

/** The plan of a statement: SQLite's EXPLAIN QUERY PLAN lines, or PostgreSQL's plan nodes as "Node Type on relation". */
async function planOf(server: TestServer, statement: LogEvent['query']): Promise<string[]> {
  if (server.kind === 'sqlite') {
    const rows = await server.query(`explain query plan ${statement.sql}`, [...statement.parameters]);
    return rows.map((row) => String(row.detail));
  }
  const [row] = await server.query(`explain (format json) ${statement.sql}`, [...statement.parameters]);
  const nodes: string[] = [];
  const walk = (node: Record<string, unknown>) => {
    const relation = node['Relation Name'] as string | undefined;
    nodes.push(`${node['Node Type'] as string}${relation === undefined ? '' : ` on ${relation}`}`);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk(((row?.['QUERY PLAN'] as Record<string, unknown>[])[0] ?? {}).Plan as Record<string, unknown>);
  return nodes;
}

describeEachStore('query plans of large lists', (context) => {
  let organization: string;
  let collection: string;
  before(async () => {
    organization = await createOrganization(context.server);
    collection = await createCollection(context.server, organization);
    await fillCollection(context.server, collection);
  });

  it('reads a filtered page sorted by update time, and its total, through indexes: no full scan, no sort of the collection', async () => {
    const statements: LogEvent['query'][] = [];
    const { engine, close } = engineOver(context.server, statements);
    after(close);
    const caller = {
      subject: 'plans',
      email: undefined,
      name: undefined,
      groups: ['STRATUM_ADMIN'],
      isAdministrator: true,
      token: { kind: 'service' as const, trackedId: undefined, expiresAt: undefined },
    };
    const item = registry.get('item');
    const parent = registry.get('collection');
    const tenant = registry.tenant;
    assert.ok(item !== undefined && parent !== undefined);
    const page = await engine.open(caller, { transport: 'service' }).list(
      {
        resource: item,
        ancestors: [
          { resource: tenant, id: organization },
          { resource: parent, id: collection },
        ],
      },
      {
        filter: { name: 'filter', value: 'key==PROD_*;category==ENV' },
        sort: { name: 'sort', value: '-updatedDate' },
        page: { limit: { name: 'page[size]', value: 50 }, totals: true },
      },
    );
    assert.equal(page.rows.length, 50);
    assert.ok((page.total ?? 0) > items / 8, `total ${String(page.total)}`);
    const onItems = statements.filter((s) => /from "item"/.test(s.sql));
    assert.equal(onItems.length, 2, onItems.map((s) => s.sql).join('\n'));
    for (const statement of onItems) {
      const plan = await planOf(context.server, statement);
      const text = plan.join(' | ');
      if (context.kind === 'sqlite') {
        assert.ok(
          plan.every((line) => !/^SCAN r\b/.test(line)),
          `full scan: ${text}`,
        );
        assert.ok(
          plan.every((line) => !/TEMP B-TREE FOR ORDER BY/.test(line)),
          `sort of the whole collection: ${text}`,
        );
      } else {
        assert.ok(
          plan.every((node) => node !== 'Seq Scan on item'),
          `full scan: ${text}`,
        );
        assert.ok(
          plan.every((node) => !/^(Sort|Incremental Sort)$/.test(node)),
          `sort: ${text}`,
        );
      }
    }
  });
});

describeEachStore('planner statistics of the embedded store', { env: { STRATUM_SQLITE_ANALYZE_INTERVAL_MS: '300' } }, (context) => {
  it('gathers the statistics by itself, off the event loop, and keeps serving meanwhile', async (t) => {
    if (context.kind !== 'sqlite') {
      t.skip("PostgreSQL's autovacuum gathers its statistics");
      return;
    }
    const organization = await createOrganization(context.server);
    const collection = await createCollection(context.server, organization);
    await fillCollection(context.server, collection);
    await context.server.execute('delete from sqlite_stat1');
    await eventually(
      'the server to gather statistics of the items',
      async () => {
        assert.equal((await context.server.get(`/api/v1/organization/${organization}`)).status, 200);
        const [row] = await context.server.query("select count(*) as n from sqlite_stat1 where tbl = 'item'");
        assert.ok(Number(row?.n) > 0);
      },
      { timeoutMs: 10000 },
    );
  });

  it('completes every update made while the statistics are gathered: a transaction waits for the write lock, not failing on a stale snapshot', async (t) => {
    if (context.kind !== 'sqlite') {
      t.skip('only the embedded store gathers statistics on a connection of its own');
      return;
    }
    // Each ANALYZE writes on the worker's connection. A deferred transaction here that has read
    // cannot take the write lock while ANALYZE holds it, nor write on a snapshot its commit made
    // stale: SQLite answers SQLITE_BUSY at once, without waiting out the busy timeout.
    const organization = await createOrganization(context.server);
    const collection = await createCollection(context.server, organization);
    await fillCollection(context.server, collection);
    const items = `/api/v1/organization/${organization}/collection/${collection}/item`;
    const statuses = new Map<number, number>();
    const deadline = Date.now() + 3000;
    await Promise.all(
      Array.from({ length: 8 }, async (_, writer) => {
        const item = await createRecord(context.server, items, 'item', { key: `WRITER_${writer}`, value: '0', category: 'ENV' });
        for (let round = 1; Date.now() < deadline; round++) {
          // An update reads the record, then writes it, in one transaction.
          const updated = await context.server.request('PATCH', `${items}/${item}`, {
            body: { data: { type: 'item', id: item, attributes: { value: String(round) } } },
          });
          statuses.set(updated.status, (statuses.get(updated.status) ?? 0) + 1);
        }
      }),
    );
    assert.deepEqual([...statuses.keys()], [204], JSON.stringify(Object.fromEntries(statuses)));
  });
});

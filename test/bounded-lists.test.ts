import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { databaseApiError } from '../src/store/failures.ts';
import { assertError, createOrganization, describeEachStore, postgresUrl } from './harness.ts';
import { errors, graphql } from './graphql-helpers.ts';

/** `count` sort keys of short names (a URL holds 16 KiB), in an order `seed` picks, so that each such sort is a new text. */
function longSort(count: number, seed: number): string {
  const names = ['name', '-name', 'id', '-id', 'description', '-description'];
  return Array.from({ length: count }, (_, i) => names[(i * 7 + seed) % names.length]).join(',');
}

/** The server's resident memory, from its own metrics. */
async function residentBytes(logs: readonly string[]): Promise<number> {
  const line = logs.map((text) => JSON.parse(text) as Record<string, unknown>).find((l) => l.msg === 'metrics listening');
  assert.ok(line !== undefined, 'no "metrics listening" line');
  const text = await (await fetch(String(line.metrics))).text();
  const match = /^process_resident_memory_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
  assert.ok(match?.[1] !== undefined, 'no process_resident_memory_bytes');
  return Number(match[1]);
}

describeEachStore('bounded lists: sort keys and ids', { env: { STRATUM_METRICS_PORT: '0' } }, (context) => {
  it('refuses a sort of more than 8 keys, or one that names an attribute twice, with a 400 naming sort', async () => {
    const organization = await createOrganization(context.server);
    const list = `/api/v1/organization/${organization}/workspace`;
    assert.equal((await context.server.get(`${list}?sort=name,-description,branch,folder,source,iacType,executionMode,id`)).status, 200);
    for (const sort of [
      'name,description,branch,folder,source,iacType,executionMode,terraformVersion,id',
      'name,-name',
      longSort(2100, 0),
    ]) {
      const [error] = assertError(await context.server.get(`${list}?sort=${sort}`), 400);
      assert.deepEqual(error?.source, { parameter: 'sort' }, sort.slice(0, 80));
    }
    const [repeated] = await errors(context.server, `{ workspace(sort: "name,name") { edges { node { id } } } }`);
    assert.deepEqual(repeated?.extensions, { code: 'invalid_argument', status: 400, argument: 'sort' });
  });

  it('answers many distinct long sorts from a caller in no group at once with a 400, its memory staying bounded and /healthz answering', async () => {
    const token = await context.server.token({ groups: [] });
    const before = await residentBytes(context.server.logs);
    for (let round = 0; round < 60; round++) {
      const query = `{ organization(first: 1, sort: "${longSort(100_000, round)}") { edges { node { id } } } }`;
      const [error, ...more] = await errors(context.server, query, { token });
      assert.equal(more.length, 0);
      assert.deepEqual(error?.extensions, { code: 'invalid_argument', status: 400, argument: 'sort' });
    }
    assert.equal((await context.server.get('/healthz', { token: null })).status, 200);
    const after = await residentBytes(context.server.logs);
    assert.ok(after < 1024 ** 3, `resident memory ${after} bytes`);
    assert.ok(after - before < 256 * 1024 ** 2, `resident memory grew from ${before} to ${after} bytes`);
  });

  it('caps ids at 1000, given in the query or in variables, at the root and nested, with a 400 naming ids', async () => {
    const organization = await createOrganization(context.server);
    // Short ids, as a hostile caller sends them: 70,000 fit in the 1 MiB a body may hold.
    const ids = (count: number) => Array.from({ length: count }, (_, i) => String(i));
    const inline = `{ workspace(ids: [${ids(1001)
      .map((id) => `"${id}"`)
      .join(',')}]) { edges { node { id } } } }`;
    const cases: [string, Record<string, unknown> | undefined][] = [
      [inline, undefined],
      ['query($ids: [String]) { workspace(ids: $ids) { edges { node { id } } } }', { ids: ids(40_000) }],
      [
        'query($org: [String], $ids: [String]) { organization(ids: $org) { edges { node { workspace(ids: $ids) { edges { node { id } } } } } } }',
        { org: [organization], ids: ids(70_000) },
      ],
    ];
    for (const [query, variables] of cases) {
      const response = await graphql(context.server, query, variables === undefined ? {} : { variables });
      assert.equal(response.status, 200, response.text.slice(0, 300));
      const [error] = response.body.errors as { extensions: Record<string, unknown> }[];
      assert.deepEqual(error?.extensions, { code: 'invalid_argument', status: 400, argument: 'ids' }, query.slice(0, 80));
    }
    const within = await graphql(context.server, 'query($ids: [String]) { workspace(ids: $ids) { edges { node { id } } } }', {
      variables: { ids: ids(1000) },
    });
    assert.deepEqual(within.body, { data: { workspace: { edges: [] } } });
  });
});

describe('database refusals of a statement too large', () => {
  const refusal = { status: 400, code: 'request_too_large' };
  const explained = (error: unknown) => {
    const apiError = databaseApiError(error);
    return apiError === undefined ? undefined : { status: apiError.status, code: apiError.problems[0]?.code };
  };
  const failure = async (run: () => unknown): Promise<unknown> => {
    try {
      await run();
    } catch (error) {
      return error;
    }
    throw new Error('the database took the statement');
  };

  it('are client errors on SQLite: too many variables, too many ORDER BY terms', async () => {
    const db = new Sqlite(':memory:');
    const values = Array<number>(40_000).fill(1);
    assert.deepEqual(
      explained(await failure(() => db.prepare(`select 1 where 1 in (${values.map(() => '?').join(',')})`).all(...values))),
      refusal,
    );
    assert.deepEqual(explained(await failure(() => db.prepare(`select 1 order by ${Array(2100).fill('1').join(',')}`).all())), refusal);
    db.close();
  });

  it('are client errors on PostgreSQL: more bind parameters than its protocol counts', async () => {
    const client = new pg.Client({ connectionString: postgresUrl() });
    await client.connect();
    try {
      const count = 70_000;
      const text = `select 1 where 1 in (${Array.from({ length: count }, (_, i) => `$${i + 1}`).join(',')})`;
      assert.deepEqual(explained(await failure(() => client.query(text, Array<number>(count).fill(1)))), refusal);
    } finally {
      await client.end();
    }
  });
});

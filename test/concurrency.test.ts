import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import pg from 'pg';
import {
  createCollection,
  createOrganization,
  createRecord,
  createWorkspace,
  describeEachStore,
  eventually,
  resourceDocument,
} from './harness.ts';

/** How many answers had each status, e.g. {204: 1, 412: 49}. */
function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describeEachStore('concurrent writes', (context) => {
  let organization: string;
  before(async () => {
    organization = await createOrganization(context.server);
  });

  it('lets exactly one of 50 PATCHes with the same If-Match through; the others are 412 and change nothing', async () => {
    for (let round = 0; round < 3; round++) {
      const workspace = await createWorkspace(context.server, organization);
      const path = `/api/v1/workspace/${workspace}`;
      const tag = (await context.server.get(path)).headers.get('etag') ?? '';
      const writers = Array.from({ length: 50 }, (_, i) =>
        context.server.patch(path, resourceDocument('workspace', { description: `writer ${i}` }, { id: workspace }), {
          headers: { 'if-match': tag },
        }),
      );
      const answers = await Promise.all(writers);
      assert.deepEqual(tally(answers.map((a) => a.status)), { 204: 1, 412: 49 }, `round ${round}`);
      const winner = answers.findIndex((a) => a.status === 204);
      assert.equal((await context.server.get(path)).body.data.attributes.description, `writer ${winner}`);
    }
  });

  it('lets exactly one of 50 DELETEs with the same If-Match through; the others find nothing', async () => {
    const collection = await createCollection(context.server, organization);
    const path = `/api/v1/organization/${organization}/collection/${collection}`;
    const tag = (await context.server.get(path)).headers.get('etag') ?? '';
    const answers = await Promise.all(Array.from({ length: 50 }, () => context.server.delete(path, { headers: { 'if-match': tag } })));
    assert.deepEqual(tally(answers.map((a) => a.status)), { 204: 1, 404: 49 });
  });

  it('answers creates racing the delete of their parent with 201 or 404, never a failure', async () => {
    for (let round = 0; round < 8; round++) {
      const workspace = await createWorkspace(context.server, organization);
      const creates = Array.from({ length: 30 }, (_, i) =>
        context.server.post(
          `/api/v1/workspace/${workspace}/variable`,
          resourceDocument('variable', { key: `K${i}`, value: 'v', category: 'ENV' }),
        ),
      );
      const deleted = context.server.delete(`/api/v1/workspace/${workspace}`);
      const answers = await Promise.all([...creates, deleted]);
      for (const answer of answers) assert.ok([201, 204, 404].includes(answer.status), `${answer.status}: ${answer.text}`);
      assert.equal((await deleted).status, 204);
      assert.equal(await context.server.countRows('variable', 'workspace_id', workspace), 0);
    }
  });

  it('answers creates racing the delete of a collection they reference with 201 or 404', async () => {
    for (let round = 0; round < 5; round++) {
      const collection = await createCollection(context.server, organization);
      const items = `/api/v1/organization/${organization}/collection/${collection}/item`;
      const creates = Array.from({ length: 20 }, (_, i) =>
        createRecord(context.server, items, 'item', { key: `k${i}-${randomUUID()}`, category: 'TERRAFORM' }).then(
          () => 201,
          (error: unknown) => (String(error).includes('answered 404') ? 404 : 500),
        ),
      );
      const deleted = context.server.delete(`/api/v1/organization/${organization}/collection/${collection}`).then((r) => r.status);
      const statuses = await Promise.all([...creates, deleted]);
      assert.ok(
        statuses.every((s) => s === 201 || s === 204 || s === 404),
        JSON.stringify(tally(statuses)),
      );
    }
  });

  it('answers changes of records whose parent is being deleted with 204 or 404, never a failure', async () => {
    for (let round = 0; round < 10; round++) {
      const collection = await createCollection(context.server, organization);
      const items = `/api/v1/organization/${organization}/collection/${collection}/item`;
      const ids = await Promise.all(
        Array.from({ length: 6 }, (_, i) => createRecord(context.server, items, 'item', { key: `k${i}`, category: 'TERRAFORM' })),
      );
      const answers = await Promise.all([
        context.server.delete(`/api/v1/organization/${organization}/collection/${collection}`),
        ...ids.map((id) => context.server.delete(`${items}/${id}`)),
        ...ids.map((id) => context.server.patch(`${items}/${id}`, resourceDocument('item', { description: 'x' }, { id }))),
      ]);
      for (const answer of answers) assert.ok([204, 404].includes(answer.status), `${answer.status}: ${answer.text}`);
    }
  });

  it('runs a write again when PostgreSQL picks it as the victim of a deadlock, and answers as if nothing happened', async (t) => {
    if (context.kind !== 'postgres') {
      t.skip('SQLite has one writer at a time, so its writes cannot deadlock');
      return;
    }
    const workspace = await createWorkspace(context.server, organization);
    const variable = await createRecord(context.server, `/api/v1/workspace/${workspace}/variable`, 'variable', {
      key: 'K',
      value: 'v',
      category: 'ENV',
    });
    // Another session holds the variable and then asks for the workspace, while the server's delete
    // holds the workspace and, cascading, asks for the variable: a deadlock. The other session waits
    // longer before looking for one, so PostgreSQL makes the server's transaction the victim.
    const other = new pg.Client({ connectionString: context.server.env.DATABASE_URL });
    await other.connect();
    try {
      await other.query("set deadlock_timeout = '10s'");
      await other.query('begin');
      await other.query('select id from variable where id = $1 for update', [variable]);
      const deleted = context.server.delete(`/api/v1/workspace/${workspace}`);
      await eventually("the server's delete to wait for the variable", async () => {
        // Inside a transaction, the activity view is read once and kept unless cleared.
        await other.query('select pg_stat_clear_snapshot()');
        const waiting = await other.query(
          "select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike 'delete from%'",
        );
        assert.equal(waiting.rowCount, 1);
      });
      await other.query('select id from workspace where id = $1 for update', [workspace]);
      await other.query('rollback');
      const answer = await deleted;
      assert.equal(answer.status, 204, answer.text);
      assert.equal((await context.server.get(`/api/v1/workspace/${workspace}`)).status, 404);
    } finally {
      await other.end();
    }
  });
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import { createCollection, createOrganization, createRecord, createWorkspace, describeEachStore, resourceDocument } from './harness.ts';

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
});

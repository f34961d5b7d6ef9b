import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import {
  assertError,
  createCollection,
  createOrganization,
  createRecord,
  createWorkspace,
  describeEachStore,
  resourceDocument,
} from './harness.ts';

/** Names of properties every JavaScript object inherits: each must be as unknown as any other name. */
const builtInNames = ['constructor', 'toString', 'valueOf', '__proto__', 'hasOwnProperty'];

describeEachStore('refused names and values', (context) => {
  let organization: string;
  let workspace: string;
  let collection: string;
  let reference: string;
  before(async () => {
    organization = await createOrganization(context.server);
    workspace = await createWorkspace(context.server, organization);
    collection = await createCollection(context.server, organization, { priority: 5 });
    reference = await createRecord(
      context.server,
      `/api/v1/organization/${organization}/collection/${collection}/reference`,
      'reference',
      {},
      { relationships: { workspace: { data: { type: 'workspace', id: workspace } } } },
    );
  });

  it('treats names of built-in properties as unknown names in sort, filter, fields, include and relationship paths', async () => {
    for (const name of builtInNames) {
      const list = `/api/v1/organization/${organization}/workspace`;
      assertError(await context.server.get(`${list}?sort=${name}`), 400);
      assertError(await context.server.get(`${list}?sort=-${name}`), 400);
      assertError(await context.server.get(`${list}?filter=${name}==1`), 400);
      assertError(await context.server.get(`${list}?filter[workspace]=${name}.name==x`), 400);
      assertError(await context.server.get(`${list}?fields[workspace]=${name}`), 400);
      assertError(await context.server.get(`${list}?include=${name}`), 400);
      assertError(await context.server.get(`/api/v1/workspace/${workspace}/relationships/${name}`), 404);
      assertError(
        await context.server.request('PATCH', `/api/v1/workspace/${workspace}/relationships/${name}`, { body: { data: null } }),
        404,
      );
    }
  });

  it('refuses attributes and relationships named after built-in properties in a document, with a pointer', async () => {
    for (const name of builtInNames) {
      // JSON.parse makes "__proto__" an own member, as a client's body would.
      const attributes = JSON.parse(`{"name":"w-${name}","${name}":"x"}`) as Record<string, unknown>;
      assertError(
        await context.server.post(`/api/v1/organization/${organization}/workspace`, { data: { type: 'workspace', attributes } }),
        400,
        `/data/attributes/${name}`,
      );
      const relationships = JSON.parse(`{"${name}":{"data":null}}`) as Record<string, unknown>;
      const update = { data: { type: 'workspace', id: workspace, attributes: {}, relationships } };
      assertError(await context.server.patch(`/api/v1/workspace/${workspace}`, update), 400, `/data/relationships/${name}`);
    }
    const list = await context.server.get(`/api/v1/organization/${organization}/workspace?filter=name==w-*`);
    assert.deepEqual(list.body.data, [], 'nothing was created');
  });

  it('refuses filter values outside the range of their attribute with a 400 naming the parameter, on both stores alike', async () => {
    const collections = `/api/v1/organization/${organization}/collection`;
    for (const filter of [
      'priority=gt=2147483648',
      'priority=lt=-2147483649',
      'priority=in=(1,99999999999999999999)',
      'priority==1.5',
      'priority==ten',
    ]) {
      const errors = assertError(await context.server.get(`${collections}?filter=${encodeURIComponent(filter)}`), 400);
      assert.equal((errors[0] as { source?: { parameter?: string } }).source?.parameter, 'filter', filter);
    }
    const within = await context.server.get(`${collections}?filter=priority=le=2147483647`);
    assert.equal(within.status, 200, within.text);
    assert.deepEqual(
      within.body.data.map((c: { id: string }) => c.id),
      [collection],
    );
  });

  it('refuses a NUL character anywhere in the URL with the same 400 on both stores', async () => {
    for (const path of [
      `/api/v1/organization/${organization}/workspace?filter=name==a%00b`,
      `/api/v1/organization/${organization}/workspace?sort=name%00`,
      `/api/v1/organization/${organization}%00`,
      '/access-token/v1/teams/%00',
      '/pat/v1/x%00',
    ]) {
      const method = path.startsWith('/api') ? 'GET' : 'DELETE';
      assertError(await context.server.request(method, path), 400);
    }
  });

  it('refuses to unlink the workspace a reference requires: 422 on the relationship route, as in documents', async () => {
    const path = `/api/v1/reference/${reference}/relationships/workspace`;
    assertError(await context.server.request('PATCH', path, { body: { data: null } }), 422, '/data');
    const linkage = await context.server.get(path);
    assert.deepEqual(linkage.body.data, { type: 'workspace', id: workspace });
    assertError(
      await context.server.patch(
        `/api/v1/reference/${reference}`,
        resourceDocument('reference', {}, { id: reference, relationships: { workspace: { data: null } } }),
      ),
      422,
      '/data/relationships/workspace',
    );
  });
});

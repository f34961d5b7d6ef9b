import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
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

const timestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describeEachStore('collections, items and references', (context) => {
  let organization: string;
  const collections = () => `/api/v1/organization/${organization}/collection`;
  const items = (collection: string) => `${collections()}/${collection}/item`;
  const references = (collection: string) => `${collections()}/${collection}/reference`;

  before(async () => {
    organization = await createOrganization(context.server);
  });

  it('creates a collection as the Terraform provider sends it, echoing null and priority exactly', async () => {
    const name = `shared-${randomUUID()}`;
    const created = await context.server.post(collections(), resourceDocument('collection', { name, description: null, priority: 10 }));
    assert.equal(created.status, 201, created.text);
    const { id, attributes, relationships } = created.body.data;
    assert.equal(created.headers.get('location'), `${collections()}/${id}`);
    assert.deepEqual(
      { ...attributes, createdDate: undefined, updatedDate: undefined },
      {
        name,
        description: null,
        priority: 10,
        createdBy: 'admin@example.com',
        createdDate: undefined,
        updatedBy: 'admin@example.com',
        updatedDate: undefined,
      },
    );
    assert.match(attributes.createdDate, timestamp);
    assert.deepEqual(relationships, { organization: { data: { type: 'organization', id: organization } } });
    const read = await context.server.get(`${collections()}/${id}`);
    assert.deepEqual(read.body.data, created.body.data);
    // The web UI sends an empty description, which must come back empty, not null.
    const empty = await context.server.post(
      collections(),
      resourceDocument('collection', { name: `ui-${randomUUID()}`, description: '', priority: 0 }),
    );
    assert.equal(empty.body.data.attributes.description, '');
  });

  it('lists, updates and deletes collections with 200, 204 and 204', async () => {
    const id = await createCollection(context.server, organization, { priority: 1 });
    const list = await context.server.get(`${collections()}?filter[collection]=id==${id}`);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.map((c: { id: string }) => c.id),
      [id],
    );
    const other = await context.server.token({ groups: ['STRATUM_ADMIN'], email: 'other@example.com' });
    const patched = await context.server.patch(`${collections()}/${id}`, resourceDocument('collection', { priority: 20 }, { id }), {
      token: other,
    });
    assert.equal(patched.status, 204);
    assert.equal(patched.text, '');
    const read = (await context.server.get(`${collections()}/${id}`)).body.data.attributes;
    assert.equal(read.priority, 20);
    assert.equal(read.createdBy, 'admin@example.com');
    assert.equal(read.updatedBy, 'other@example.com');
    assert.ok(read.updatedDate >= read.createdDate);
    assert.equal((await context.server.delete(`${collections()}/${id}`)).status, 204);
    assert.equal((await context.server.get(`${collections()}/${id}`)).status, 404);
  });

  it('refuses a duplicate collection name in one organization with 409, but allows it in another', async () => {
    const name = `dup-${randomUUID()}`;
    await createCollection(context.server, organization, { name });
    assertError(await context.server.post(collections(), resourceDocument('collection', { name })), 409, '/data/attributes/name');
    const elsewhere = await createOrganization(context.server);
    await createCollection(context.server, elsewhere, { name });
  });

  it('checks collection values: name required, priority an integer', async () => {
    const errors = assertError(await context.server.post(collections(), resourceDocument('collection', { priority: '1' })), 422);
    assert.deepEqual(errors.map((e) => e.source?.pointer).sort(), ['/data/attributes/name', '/data/attributes/priority']);
    assertError(
      await context.server.post(collections(), resourceDocument('collection', { name: 'x', priority: 1.5 })),
      422,
      '/data/attributes/priority',
    );
    assertError(
      await context.server.post(collections(), resourceDocument('collection', { name: 'x', colour: 'red' })),
      400,
      '/data/attributes/colour',
    );
  });

  it('creates items with their defaults when the web UI leaves sensitive, hcl and description out', async () => {
    const collection = await createCollection(context.server, organization);
    const created = await context.server.post(
      items(collection),
      resourceDocument('item', { key: 'AWS_REGION', value: 'eu-west-1', category: 'ENV' }),
    );
    assert.equal(created.status, 201, created.text);
    const { id, attributes, relationships } = created.body.data;
    assert.equal(attributes.key, 'AWS_REGION');
    assert.equal(attributes.value, 'eu-west-1');
    assert.equal(attributes.description, null);
    assert.equal(attributes.sensitive, false);
    assert.equal(attributes.hcl, false);
    assert.deepEqual(relationships.collection.data, { type: 'collection', id: collection });
    assert.equal((await context.server.get(`${items(collection)}/${id}`)).body.data.attributes.value, 'eu-west-1');
    const noValue = await context.server.post(items(collection), resourceDocument('item', { key: 'EMPTY', category: 'ENV' }));
    assert.equal(noValue.body.data.attributes.value, '');
  });

  it('pages items with page[number] and page[size]', async () => {
    const collection = await createCollection(context.server, organization);
    for (let n = 0; n < 5; n++)
      await createRecord(context.server, items(collection), 'item', { key: `K${n}`, value: String(n), category: 'TERRAFORM' });
    const page = await context.server.get(`${items(collection)}?page[number]=2&page[size]=2&page[totals]`);
    assert.equal(page.status, 200);
    assert.deepEqual(
      page.body.data.map((i: { attributes: { key: string } }) => i.attributes.key),
      ['K2', 'K3'],
    );
    assert.deepEqual(page.body.meta.page, { number: 2, limit: 2, totalPages: 3, totalRecords: 5 });
  });

  it('updates items partially with 204 (a PATCH without sensitive keeps it) and deletes them with 204', async () => {
    const collection = await createCollection(context.server, organization);
    const id = await createRecord(context.server, items(collection), 'item', { key: 'K', value: 'v1', category: 'TERRAFORM', hcl: true });
    const patched = await context.server.patch(
      `${items(collection)}/${id}`,
      resourceDocument('item', { value: 'v2', description: 'd' }, { id }),
    );
    assert.equal(patched.status, 204, patched.text);
    const read = (await context.server.get(`${items(collection)}/${id}`)).body.data.attributes;
    assert.deepEqual([read.value, read.description, read.hcl, read.sensitive], ['v2', 'd', true, false]);
    assert.equal((await context.server.delete(`${items(collection)}/${id}`)).status, 204);
    assert.equal((await context.server.get(`${items(collection)}/${id}`)).status, 404);
  });

  it('keeps item keys unique per collection (409) and checks category and ENV keys (422)', async () => {
    const collection = await createCollection(context.server, organization);
    await createRecord(context.server, items(collection), 'item', { key: 'SAME', value: 'v', category: 'ENV' });
    assertError(
      await context.server.post(items(collection), resourceDocument('item', { key: 'SAME', value: 'w', category: 'ENV' })),
      409,
      '/data/attributes/key',
    );
    await createRecord(context.server, items(await createCollection(context.server, organization)), 'item', {
      key: 'SAME',
      value: 'v',
      category: 'ENV',
    });
    const missing = assertError(await context.server.post(items(collection), resourceDocument('item', { value: 'v' })), 422);
    assert.deepEqual(missing.map((e) => e.source?.pointer).sort(), ['/data/attributes/category', '/data/attributes/key']);
    const category = assertError(
      await context.server.post(items(collection), resourceDocument('item', { key: 'k', category: 'SECRET' })),
      422,
      '/data/attributes/category',
    );
    assert.match(category[0]?.detail ?? '', /TERRAFORM, ENV/);
    assertError(
      await context.server.post(items(collection), resourceDocument('item', { key: '1-bad key', category: 'ENV' })),
      422,
      '/data/attributes/key',
    );
    // A TERRAFORM key may be anything; turning it into ENV checks the key it already has.
    const id = await createRecord(context.server, items(collection), 'item', { key: 'my-var', value: 'v', category: 'TERRAFORM' });
    assertError(
      await context.server.patch(`${items(collection)}/${id}`, resourceDocument('item', { category: 'ENV' }, { id })),
      422,
      '/data/attributes/key',
    );
    assert.equal((await context.server.get(`${items(collection)}/${id}`)).body.data.attributes.category, 'TERRAFORM');
  });

  it('never reads back a sensitive item value: answer, read, list, include and the reference path', async () => {
    const collection = await createCollection(context.server, organization);
    const workspace = await createWorkspace(context.server, organization);
    const secret = `secret-${randomUUID()}`;
    const created = await context.server.post(
      items(collection),
      resourceDocument('item', { key: 'TOKEN', value: secret, category: 'ENV', sensitive: 'true' }),
    );
    assert.equal(created.status, 201);
    assert.equal(created.body.data.attributes.value, null);
    assert.equal(created.body.data.attributes.sensitive, true);
    const id = created.body.data.id as string;
    await createRecord(context.server, items(collection), 'item', { key: 'PLAIN', value: 'visible', category: 'ENV' });
    const reference = await createRecord(
      context.server,
      references(collection),
      'reference',
      {},
      { relationships: { workspace: { data: { type: 'workspace', id: workspace } } } },
    );
    for (const path of [
      `${items(collection)}/${id}`,
      items(collection),
      `${collections()}/${collection}?include=item`,
      `${collections()}?include=item`,
      `/api/v1/reference/${reference}/collection?include=item`,
    ]) {
      const response = await context.server.get(path);
      assert.equal(response.status, 200, `${path}: ${response.text}`);
      assert.ok(!response.text.includes(secret), `${path} shows the secret`);
      if (!path.endsWith(id)) assert.ok(response.text.includes('visible'), `${path} hides a plain value`);
    }
    const [row] = await context.server.query('select value from item where id = $1', [id]);
    assert.match(String(row?.value), /^s1:/);
  });

  it('keeps a sensitive item sensitive (422), seals a value that becomes sensitive, and refuses filters and sorts on values', async () => {
    const collection = await createCollection(context.server, organization);
    const id = await createRecord(context.server, items(collection), 'item', { key: 'K', value: 'once-plain', category: 'ENV' });
    assert.equal(
      (await context.server.patch(`${items(collection)}/${id}`, resourceDocument('item', { sensitive: true }, { id }))).status,
      204,
    );
    const read = (await context.server.get(`${items(collection)}/${id}`)).body.data.attributes;
    assert.deepEqual([read.value, read.sensitive], [null, true]);
    const [row] = await context.server.query('select value from item where id = $1', [id]);
    assert.match(String(row?.value), /^s1:/);
    assertError(
      await context.server.patch(`${items(collection)}/${id}`, resourceDocument('item', { sensitive: false }, { id })),
      422,
      '/data/attributes/sensitive',
    );
    assert.equal((await context.server.get(`${items(collection)}/${id}`)).body.data.attributes.sensitive, true);
    assert.equal((await context.server.get(`${items(collection)}?filter[item]=value==once-plain`)).status, 400);
    assert.equal((await context.server.get(`${items(collection)}?sort=value`)).status, 400);
    // The provider's fallback lookup filters by key.
    const byKey = await context.server.get(`${items(collection)}?filter[item]=key==K`);
    assert.deepEqual(
      byKey.body.data.map((i: { id: string }) => i.id),
      [id],
    );
  });

  it('attaches a collection to a workspace with a reference, as the provider and the web UI create it', async () => {
    const collection = await createCollection(context.server, organization);
    const workspace = await createWorkspace(context.server, organization);
    // The provider's body: both relationships, a null description and a zero-valued `included`.
    const created = await context.server.post(references(collection), {
      data: {
        type: 'reference',
        attributes: { description: null },
        relationships: {
          workspace: { data: { type: 'workspace', id: workspace } },
          collection: { data: { type: 'collection', id: collection } },
        },
      },
      included: [{ type: 'workspace', id: workspace, attributes: { name: '' } }],
    });
    assert.equal(created.status, 201, created.text);
    const reference = created.body.data;
    assert.equal(reference.attributes.description, null);
    assert.deepEqual(reference.relationships, {
      collection: { data: { type: 'collection', id: collection } },
      workspace: { data: { type: 'workspace', id: workspace } },
    });
    const list = await context.server.get(references(collection));
    assert.deepEqual(
      list.body.data.map((r: { id: string }) => r.id),
      [reference.id],
    );
    assert.deepEqual((await context.server.get(`${references(collection)}/${reference.id}`)).body.data, reference);
    assert.deepEqual((await context.server.get(`/api/v1/reference/${reference.id}`)).body.data, reference);
    const viaReference = await context.server.get(`/api/v1/reference/${reference.id}/collection`);
    assert.equal(viaReference.body.data.id, collection);
    const included = await context.server.get(`${collections()}/${collection}?include=reference`);
    assert.deepEqual(included.body.data.relationships.reference.data, [{ type: 'reference', id: reference.id }]);
  });

  it('reads, updates and deletes a reference at the root path and at the nested one', async () => {
    const collection = await createCollection(context.server, organization);
    const workspace = await createWorkspace(context.server, organization);
    const link = { relationships: { workspace: { data: { type: 'workspace', id: workspace } } } };
    const root = await createRecord(context.server, references(collection), 'reference', { description: 'a' }, link);
    const patched = await context.server.patch(`/api/v1/reference/${root}`, {
      data: {
        type: 'reference',
        id: root,
        attributes: { description: 'b' },
        relationships: {
          collection: { data: { type: 'collection', id: collection } },
          workspace: { data: { type: 'workspace', id: workspace } },
        },
      },
    });
    assert.equal(patched.status, 204, patched.text);
    assert.equal((await context.server.get(`${references(collection)}/${root}`)).body.data.attributes.description, 'b');
    assert.equal((await context.server.delete(`/api/v1/reference/${root}`)).status, 204);
    assert.equal((await context.server.get(`/api/v1/reference/${root}`)).status, 404);
    const nested = await createRecord(context.server, references(collection), 'reference', {}, link);
    assert.equal((await context.server.delete(`${references(collection)}/${nested}`)).status, 204);
    assert.equal((await context.server.get(`/api/v1/reference/${nested}`)).status, 404);
  });

  it('requires a reference workspace of the same organization (404 for one of another), and never moves a reference to another collection', async () => {
    const collection = await createCollection(context.server, organization);
    assertError(
      await context.server.post(references(collection), resourceDocument('reference', { description: 'x' })),
      422,
      '/data/relationships/workspace',
    );
    assertError(
      await context.server.post(references(collection), { data: { type: 'reference', relationships: { workspace: { data: null } } } }),
      422,
      '/data/relationships/workspace',
    );
    const foreignWorkspace = await createWorkspace(context.server, await createOrganization(context.server));
    assertError(
      await context.server.post(references(collection), {
        data: { type: 'reference', relationships: { workspace: { data: { type: 'workspace', id: foreignWorkspace } } } },
      }),
      404,
      '/data/relationships/workspace/data',
    );
    const workspace = await createWorkspace(context.server, organization);
    const otherCollection = await createCollection(context.server, organization);
    assertError(
      await context.server.post(references(collection), {
        data: {
          type: 'reference',
          relationships: {
            workspace: { data: { type: 'workspace', id: workspace } },
            collection: { data: { type: 'collection', id: otherCollection } },
          },
        },
      }),
      422,
      '/data/relationships/collection/data',
    );
    assert.equal((await context.server.get(references(collection))).body.data.length, 0);
  });

  it('hides a reference once its workspace is soft-deleted', async () => {
    const collection = await createCollection(context.server, organization);
    const workspace = await createWorkspace(context.server, organization);
    const reference = await createRecord(
      context.server,
      references(collection),
      'reference',
      {},
      { relationships: { workspace: { data: { type: 'workspace', id: workspace } } } },
    );
    const deleted = await context.server.patch(
      `/api/v1/organization/${organization}/workspace/${workspace}`,
      resourceDocument('workspace', { deleted: true }, { id: workspace }),
    );
    assert.equal(deleted.status, 204);
    assertError(await context.server.get(`/api/v1/reference/${reference}`), 404);
    assertError(await context.server.get(`${references(collection)}/${reference}`), 404);
    assert.equal((await context.server.get(references(collection))).body.data.length, 0);
  });

  it('answers 404 for ids of another organization or collection in any path, never their data', async () => {
    const other = await createOrganization(context.server);
    const foreignCollection = await createCollection(context.server, other);
    const foreignItem = await createRecord(context.server, `/api/v1/organization/${other}/collection/${foreignCollection}/item`, 'item', {
      key: 'K',
      value: 'theirs',
      category: 'ENV',
    });
    const mine = await createCollection(context.server, organization);
    const cases: [string, string][] = [
      [`${collections()}/${foreignCollection}`, `Unknown identifier ${foreignCollection} for collection`],
      [items(foreignCollection), `Unknown identifier ${foreignCollection} for collection`],
      [`${items(foreignCollection)}/${foreignItem}`, `Unknown identifier ${foreignCollection} for collection`],
      [`${items(mine)}/${foreignItem}`, `Unknown identifier ${foreignItem} for item`],
      [`${collections()}/not-a-uuid`, 'Unknown identifier not-a-uuid for collection'],
    ];
    for (const [path, detail] of cases) {
      const response = await context.server.get(path);
      assert.equal(assertError(response, 404)[0]?.detail, detail);
      assert.ok(!response.text.includes('theirs'));
    }
    assertError(
      await context.server.patch(`${items(mine)}/${foreignItem}`, resourceDocument('item', { value: 'mine' }, { id: foreignItem })),
      404,
    );
    assertError(await context.server.delete(`${items(mine)}/${foreignItem}`), 404);
    assert.equal(
      (await context.server.get(`/api/v1/organization/${other}/collection/${foreignCollection}/item/${foreignItem}`)).body.data.attributes
        .value,
      'theirs',
    );
  });

  it('deletes a collection with its items and references, and an organization with all of them, leaving no row', async () => {
    const owner = await createOrganization(context.server);
    const collection = await createCollection(context.server, owner);
    const workspace = await createWorkspace(context.server, owner);
    await createRecord(context.server, `/api/v1/organization/${owner}/collection/${collection}/item`, 'item', {
      key: 'K',
      value: 'v',
      category: 'ENV',
    });
    await createRecord(
      context.server,
      `/api/v1/organization/${owner}/collection/${collection}/reference`,
      'reference',
      {},
      { relationships: { workspace: { data: { type: 'workspace', id: workspace } } } },
    );
    assert.equal(await context.server.countRows('item', 'collection_id', collection), 1);
    assert.equal((await context.server.delete(`/api/v1/organization/${owner}/collection/${collection}`)).status, 204);
    assert.equal(await context.server.countRows('item', 'collection_id', collection), 0);
    assert.equal(await context.server.countRows('reference', 'collection_id', collection), 0);

    const second = await createCollection(context.server, owner);
    await createRecord(context.server, `/api/v1/organization/${owner}/collection/${second}/item`, 'item', {
      key: 'K',
      value: 'v',
      category: 'ENV',
    });
    await createRecord(
      context.server,
      `/api/v1/organization/${owner}/collection/${second}/reference`,
      'reference',
      {},
      { relationships: { workspace: { data: { type: 'workspace', id: workspace } } } },
    );
    assert.equal((await context.server.delete(`/api/v1/organization/${owner}/workspace/${workspace}`)).status, 204);
    assert.equal(await context.server.countRows('reference', 'workspace_id', workspace), 0);
    assert.equal(await context.server.countRows('item', 'collection_id', second), 1);
    assert.equal((await context.server.delete(`/api/v1/organization/${owner}`)).status, 204);
    assert.equal(await context.server.countRows('collection', 'organization_id', owner), 0);
    assert.equal(await context.server.countRows('item', 'collection_id', second), 0);
  });
});

import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { registry } from '../src/resources/index.ts';
import { createCollection, createOrganization, createVcs, createWorkspace, describeEachStore } from './harness.ts';
import { data, errors, graphql, literal, nodes } from './graphql-helpers.ts';

describeEachStore('GraphQL mutations', (context) => {
  let acme = '';
  let other = '';

  before(async () => {
    acme = await createOrganization(context.server, { name: 'acme', executionMode: 'local' });
    other = await createOrganization(context.server, { name: 'other' });
  });

  const read = async (path: string) => {
    const response = await context.server.get(path);
    return response.status === 200 ? response.body.data.attributes : undefined;
  };

  it('UPSERT without an id creates, through the engine: defaults, hooks and the default templates', async () => {
    const created = await data(
      context.server,
      `mutation { organization(op: UPSERT, data: {name: "gamma", description: null}) { edges { node { id name executionMode template { edges { node { name } } } } } } }`,
    );
    const [organization] = nodes(created.organization) as { id: string; template: { edges: { node: unknown }[] } }[];
    assert.deepEqual(nodes(organization?.template as never), [{ name: 'Plan' }, { name: 'Plan and apply' }, { name: 'Destroy' }]);
    assert.equal((await read(`/api/v1/organization/${organization?.id ?? ''}`))?.executionMode, 'remote');
  });

  it('a record under a parent is created through the parent, or at the root naming its parent in data', async () => {
    const nested = await data(
      context.server,
      `mutation { organization(ids: [${literal(acme)}]) { edges { node { workspace(op: UPSERT, data: [{name: "one"}, {name: "two", branch: "dev"}]) { edges { node { name branch executionMode } } } } } } }`,
    );
    assert.deepEqual(nodes(nested.organization.edges[0].node.workspace), [
      { name: 'one', branch: 'main', executionMode: 'local' },
      { name: 'two', branch: 'dev', executionMode: 'local' },
    ]);
    const root = await data(
      context.server,
      `mutation($data: [WorkspaceInput]) { workspace(op: UPSERT, data: $data) { edges { node { name organization { edges { node { id } } } } } } }`,
      { variables: { data: [{ name: 'three', organization: { id: acme } }] } },
    );
    assert.deepEqual(nodes(root.workspace), [{ name: 'three', organization: { edges: [{ node: { id: acme } }] } }]);
    const [missing] = await errors(context.server, `mutation { workspace(op: UPSERT, data: {name: "four"}) { edges { node { id } } } }`);
    assert.deepEqual(missing?.extensions, { code: 'required', status: 422, field: 'organization' });
  });

  it('UPSERT and UPDATE with an id change only what they send; an id the server did not assign is refused', async () => {
    const id = await createWorkspace(context.server, acme, { name: 'patched', description: 'kept', folder: '/infra' });
    const updated = await data(
      context.server,
      `mutation { workspace(op: UPSERT, data: {id: ${literal(id)}, folder: "/prod"}) { edges { node { id name description folder } } } }`,
    );
    assert.deepEqual(nodes(updated.workspace), [{ id, name: 'patched', description: 'kept', folder: '/prod' }]);
    await data(
      context.server,
      `mutation { workspace(op: UPDATE, data: {id: ${literal(id)}, locked: true}) { edges { node { locked } } } }`,
    );
    const stored = await read(`/api/v1/workspace/${id}`);
    assert.deepEqual([stored?.name, stored?.description, stored?.folder, stored?.locked], ['patched', 'kept', '/prod', true]);
    const [chosen] = await errors(
      context.server,
      `mutation { workspace(op: UPSERT, data: {id: "01a2093c-0000-7000-8000-000000000000", name: "x"}) { edges { node { id } } } }`,
    );
    assert.deepEqual(chosen?.extensions, { code: 'forbidden', status: 403 });
    const [noId] = await errors(context.server, `mutation { workspace(op: UPDATE, data: {name: "x"}) { edges { node { id } } } }`);
    assert.deepEqual(noId?.extensions, { code: 'invalid_argument', status: 400, argument: 'data' });
  });

  it('DELETE deletes the records of ids with what they hold; REMOVE at the root deletes too', async () => {
    const [a, b] = [
      await createWorkspace(context.server, acme, { name: 'gone-a' }),
      await createWorkspace(context.server, acme, { name: 'gone-b' }),
    ];
    const deleted = await data(context.server, `mutation { workspace(op: DELETE, ids: [${literal(a)}]) { edges { node { id } } } }`);
    assert.deepEqual(deleted, { workspace: { edges: [] } });
    await data(context.server, `mutation { workspace(op: REMOVE, ids: [${literal(b)}]) { edges { node { id } } } }`);
    assert.equal((await context.server.get(`/api/v1/workspace/${a}`)).status, 404);
    assert.equal((await context.server.get(`/api/v1/workspace/${b}`)).status, 404);
  });

  it('records held by a parent are deleted through it, and never move to another one (REMOVE is 403)', async () => {
    const collection = await createCollection(context.server, acme, { name: 'defaults' });
    const items = await data(
      context.server,
      `mutation { collection(ids: [${literal(collection)}]) { edges { node { item(op: UPSERT, data: [{key: "A", category: "ENV"}, {key: "B", category: "ENV"}]) { edges { node { id key } } } } } } }`,
    );
    const [first, second] = nodes(items.collection.edges[0].node.item) as { id: string }[];
    const [moved] = await errors(
      context.server,
      `mutation { collection(ids: [${literal(collection)}]) { edges { node { item(op: REMOVE, ids: [${literal(first?.id ?? '')}]) { edges { node { id } } } } } } }`,
    );
    assert.equal(moved?.extensions.status, 403);
    await data(
      context.server,
      `mutation { collection(ids: [${literal(collection)}]) { edges { node { item(op: DELETE, ids: [${literal(second?.id ?? '')}]) { edges { node { id } } } } } } }`,
    );
    assert.equal(await context.server.countRows('item', 'collection_id', collection), 1);
  });

  it('a to-one relationship links a record of the same organization by id, unlinks it, or deletes it', async () => {
    const workspace = await createWorkspace(context.server, acme, { name: 'linked' });
    const vcs = await createVcs(context.server, acme, { name: 'github' });
    const foreign = await createVcs(context.server, other, { name: 'foreign' });
    const through = (args: string) =>
      `mutation { workspace(ids: [${literal(workspace)}]) { edges { node { vcs(${args}) { edges { node { id name } } } } } } }`;
    const linked = await data(context.server, through(`op: UPSERT, data: {id: ${literal(vcs)}}`));
    assert.deepEqual(nodes(linked.workspace.edges[0].node.vcs), [{ id: vcs, name: 'github' }]);
    const [elsewhere] = await errors(context.server, through(`op: UPSERT, data: {id: ${literal(foreign)}}`));
    assert.deepEqual(elsewhere?.extensions, { code: 'not_found', status: 404, field: 'vcs' });
    await data(context.server, through(`op: UPDATE, data: {id: ${literal(vcs)}, status: "COMPLETED"}`));
    assert.equal((await read(`/api/v1/organization/${acme}/vcs/${vcs}`))?.status, 'COMPLETED');
    await data(context.server, through('op: REMOVE'));
    assert.deepEqual((await context.server.get(`/api/v1/workspace/${workspace}/relationships/vcs`)).body, { data: null });
    await data(context.server, through(`op: UPSERT, data: {id: ${literal(vcs)}}`));
    await data(context.server, through('op: DELETE'));
    assert.equal((await context.server.get(`/api/v1/organization/${acme}/vcs/${vcs}`)).status, 404);
    const [parent] = await errors(
      context.server,
      `mutation { workspace(ids: [${literal(workspace)}]) { edges { node { organization(op: UPSERT, data: {id: ${literal(other)}}) { edges { node { id } } } } } } }`,
    );
    assert.equal(parent?.extensions.status, 403);
  });

  it('invalid values are one 422 per problem, naming the field, and nothing is written', async () => {
    const found = await errors(
      context.server,
      `mutation { organization(ids: [${literal(acme)}]) { edges { node { vcs(op: UPSERT, data: {name: "", vcsType: "SVN", connectionType: "X"}) { edges { node { id } } } } } } }`,
    );
    assert.deepEqual(
      found.map((e) => [e.extensions.status, e.extensions.field]),
      [
        [422, 'name'],
        [422, 'vcsType'],
        [422, 'connectionType'],
      ],
    );
    assert.equal(await context.server.countRows('vcs', 'vcs_type', 'SVN'), 0);
  });

  it('a mutation commits as a whole or not at all: a failed operation rolls back the ones before it', async () => {
    const response = await graphql(
      context.server,
      `
        mutation {
          first: organization(op: UPSERT, data: { name: "committed-never" }) {
            edges {
              node {
                id
              }
            }
          }
          second: organization(op: UPSERT, data: { name: "acme" }) {
            edges {
              node {
                id
              }
            }
          }
          third: organization(op: UPSERT, data: { name: "never-run" }) {
            edges {
              node {
                id
              }
            }
          }
        }
      `,
    );
    assert.equal(response.status, 200);
    assert.equal(response.body.data, null);
    assert.deepEqual(
      response.body.errors.map((e: { path: string[]; extensions: unknown }) => [e.path, e.extensions]),
      [[['second'], { code: 'conflict', status: 409, field: 'name' }]],
    );
    assert.equal(await context.server.countRows('organization', 'name', 'committed-never'), 0);
    assert.equal(await context.server.countRows('organization', 'name', 'never-run'), 0);
    // The operation after the failure did not run into the failed transaction (an error the log would show).
    assert.deepEqual(
      context.server.logs.filter((line) => line.includes('"level":50')),
      [],
    );
  });

  it('input types carry every relationship, as in Elide: a to-many one as a list of its records, every declared one', async () => {
    const types = await data(
      context.server,
      `{ __schema { types { name kind fields { name type { kind name ofType { name } } } inputFields { name type { kind name ofType { name } } } } } }`,
    );
    type Field = { name: string; type: { kind: string; name: string | null; ofType: { name: string } | null } };
    const byName = new Map<string, { fields: Field[] | null; inputFields: Field[] | null }>(
      types.__schema.types.map((t: { name: string }) => [t.name, t]),
    );
    const typeName = (type: string) => type.charAt(0).toUpperCase() + type.slice(1);
    let toMany = 0;
    for (const resource of registry.all()) {
      const inputs = new Map((byName.get(`${typeName(resource.type)}Input`)?.inputFields ?? []).map((f) => [f.name, f.type]));
      for (const [name, relationship] of Object.entries(resource.relationships)) {
        const expected = `${typeName(relationship.type)}Input`;
        const type = inputs.get(name);
        // A many-to-many one too: the records it lists, by id.
        if (relationship.kind !== 'toOne') {
          toMany++;
          assert.deepEqual([type?.kind, type?.ofType?.name], ['LIST', expected], `${resource.type}Input.${name}`);
        } else assert.deepEqual([type?.kind, type?.name], ['INPUT_OBJECT', expected], `${resource.type}Input.${name}`);
      }
    }
    assert.ok(toMany >= 18, `${toMany} to-many relationships`);
  });

  it('a to-many field of an input takes null or an empty list, and refuses records (422 at the field, nothing written)', async () => {
    const created = await data(
      context.server,
      `mutation { organization(op: UPSERT, data: {name: "lists", workspace: [], template: null}) { edges { node { id workspace { edges { node { id } } } } } } }`,
    );
    const [organization] = nodes(created.organization) as ({ id: string; workspace: { edges: unknown[] } } | undefined)[];
    const id = organization?.id ?? '';
    assert.deepEqual(organization?.workspace.edges, []);
    await data(
      context.server,
      `mutation { organization(op: UPDATE, data: {id: ${literal(id)}, description: "kept", vcs: []}) { edges { node { id } } } }`,
    );
    for (const [query, variables] of [
      [`mutation { organization(op: UPSERT, data: {name: "nested", workspace: [{name: "inside"}]}) { edges { node { id } } } }`, {}],
      [
        'mutation($d: [OrganizationInput]) { organization(op: UPDATE, data: $d) { edges { node { id } } } }',
        { d: [{ id, description: 'changed', workspace: [{ name: 'inside' }] }] },
      ],
      [
        `mutation { workspace(op: UPSERT, data: {name: "inside", organization: {id: ${literal(id)}}, variable: [{key: "K", category: "ENV"}]}) { edges { node { id } } } }`,
        {},
      ],
    ] as const) {
      const found = await errors(context.server, query, { variables });
      assert.deepEqual(
        found.map(({ message, extensions }) => [/records it lists/.test(message), extensions.code, extensions.status]),
        [[true, 'not_supported', 422]],
      );
      assert.ok(
        found.every(({ extensions }) => ['workspace', 'variable'].includes(extensions.field ?? '')),
        JSON.stringify(found),
      );
    }
    assert.equal(await context.server.countRows('organization', 'name', 'nested'), 0);
    assert.equal(await context.server.countRows('workspace', 'name', 'inside'), 0);
    assert.equal((await read(`/api/v1/organization/${id}`))?.description, 'kept');
  });

  it('writes are refused outside a mutation, and with paging, filters or ids where Elide refuses them', async () => {
    const cases: [string, string][] = [
      ['{ organization(op: UPSERT, data: {name: "in-a-query"}) { edges { node { id } } } }', 'op'],
      ['mutation { organization(op: UPSERT, data: {name: "paged"}, first: 1) { edges { node { id } } } }', 'op'],
      [`mutation { organization(op: UPSERT, ids: [${literal(acme)}], data: {name: "x"}) { edges { node { id } } } }`, 'ids'],
      ['mutation { organization(op: DELETE) { edges { node { id } } } }', 'ids'],
      ['mutation { organization(op: UPSERT) { edges { node { id } } } }', 'data'],
      ['{ organization(data: {name: "fetch"}) { edges { node { id } } } }', 'data'],
      ['mutation { organization(op: DELETE, ids: []) { edges { node { id } } } }', 'ids'],
    ];
    for (const [query, argument] of cases) {
      const [error] = await errors(context.server, query);
      assert.deepEqual(error?.extensions, { code: 'invalid_argument', status: 400, argument }, query);
    }
    assert.equal(await context.server.countRows('organization', 'name', 'in-a-query'), 0);
  });
});

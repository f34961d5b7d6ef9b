import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createOrganization, createRecord, createVcs, createWorkspace, describeEachStore } from './harness.ts';
import { data, errors, literal, nodes } from './graphql-helpers.ts';

describeEachStore('GraphQL authorization', (context) => {
  let acme = '';
  let workspace = '';
  const tokens: Record<'outsider' | 'writer' | 'reader', string> = { outsider: '', writer: '', reader: '' };

  before(async () => {
    const { server } = context;
    acme = await createOrganization(server, { name: 'acme' });
    await createOrganization(server, { name: 'elsewhere' });
    workspace = await createWorkspace(server, acme, { name: 'network' });
    await createRecord(server, `/api/v1/workspace/${workspace}/variable`, 'variable', {
      key: 'TOKEN',
      value: 'hunter2',
      category: 'ENV',
      sensitive: true,
    });
    await createVcs(server, acme, { clientSecret: 'cs-2f1c' });
    await createRecord(server, `/api/v1/organization/${acme}/team`, 'team', { name: 'acme-writers', manageWorkspace: true });
    await createRecord(server, `/api/v1/organization/${acme}/team`, 'team', { name: 'acme-readers', role: 'read' });
    tokens.outsider = await server.token({ groups: ['nobody'] });
    tokens.writer = await server.token({ groups: ['acme-writers'] });
    tokens.reader = await server.token({ groups: ['acme-readers'] });
  });

  const everything = `{
    organization { edges { node { id } } }
    workspace { edges { node { id } } }
    variable { edges { node { id } } }
    vcs { edges { node { id } } }
    team { edges { node { id } } }
    template { edges { node { id } } }
  }`;

  it('a caller outside the organization sees nothing in it, by any root field or id', async () => {
    const read = await data(context.server, everything, { token: tokens.outsider });
    for (const [field, connection] of Object.entries(read)) assert.deepEqual(connection, { edges: [] }, field);
    const byId = await data(
      context.server,
      `{ workspace(ids: [${literal(workspace)}]) { edges { node { id } } } organization(ids: [${literal(acme)}]) { edges { node { id } } } }`,
      {
        token: tokens.outsider,
      },
    );
    assert.deepEqual(byId, { workspace: { edges: [] }, organization: { edges: [] } });
  });

  it('a member reads its organization and everything in it, and nothing of the others; secrets read null', async () => {
    const read = await data(
      context.server,
      `{ organization { edges { node { id name workspace { edges { node { name variable { edges { node { key value } } } } } } vcs { edges { node { clientSecret } } } } } } }`,
      { token: tokens.reader },
    );
    assert.deepEqual(nodes(read.organization), [
      {
        id: acme,
        name: 'acme',
        workspace: { edges: [{ node: { name: 'network', variable: { edges: [{ node: { key: 'TOKEN', value: null } }] } } }] },
        vcs: { edges: [{ node: { clientSecret: null } }] },
      },
    ]);
    const all = await data(context.server, everything, { token: tokens.reader });
    assert.equal(all.organization.edges.length, 1);
    assert.equal(all.template.edges.length, 3);
  });

  it('a member with manageWorkspace creates a variable, and one without it is refused (403) and writes nothing', async () => {
    const create = (token: string, key: string) =>
      context.server.request('POST', '/graphql/api/v1', {
        token,
        headers: { 'content-type': 'application/json' },
        raw: JSON.stringify({
          query: `mutation { workspace(ids: [${literal(workspace)}]) { edges { node { variable(op: UPSERT, data: {key: ${literal(key)}, value: "1", category: "ENV"}) { edges { node { key } } } } } } }`,
        }),
      });
    const allowed = await create(tokens.writer, 'ALLOWED');
    assert.equal(allowed.body.errors, undefined, allowed.text);
    assert.deepEqual(nodes(allowed.body.data.workspace.edges[0].node.variable), [{ key: 'ALLOWED' }]);
    const refused = await create(tokens.reader, 'REFUSED');
    assert.equal(refused.body.data, null);
    assert.deepEqual(refused.body.errors[0].extensions, { code: 'forbidden', status: 403 });
    assert.match(refused.body.errors[0].message, /manageWorkspace/);
    assert.equal(await context.server.countRows('variable', 'key', 'REFUSED'), 0);
  });

  it('a member may not write what its team does not manage, nor organizations and teams', async () => {
    const cases = [
      `mutation { organization(ids: [${literal(acme)}]) { edges { node { template(op: UPSERT, data: {name: "t", tcl: "Zmxvdzog"}) { edges { node { id } } } } } } }`,
      `mutation { organization(op: UPDATE, data: {id: ${literal(acme)}, name: "renamed"}) { edges { node { id } } } }`,
      `mutation { organization(ids: [${literal(acme)}]) { edges { node { team(op: UPSERT, data: {name: "mine", role: "admin"}) { edges { node { id } } } } } } }`,
      `mutation { workspace(op: DELETE, ids: [${literal(workspace)}]) { edges { node { id } } } }`,
    ];
    for (const query of cases) {
      const [error] = await errors(context.server, query, { token: tokens.reader });
      assert.equal(error?.extensions.status, 403, query);
    }
    assert.equal(await context.server.countRows('organization', 'name', 'renamed'), 0);
    assert.equal(await context.server.countRows('team', 'name', 'mine'), 0);
    assert.equal(await context.server.countRows('workspace', 'id', workspace), 1);
  });

  it("an outsider's write to a record it cannot see is the 404 of a record that does not exist", async () => {
    const [error] = await errors(
      context.server,
      `mutation { workspace(op: UPDATE, data: {id: ${literal(workspace)}, name: "taken"}) { edges { node { id } } } }`,
      {
        token: tokens.outsider,
      },
    );
    assert.deepEqual(error?.extensions, { code: 'not_found', status: 404 });
    assert.equal(error.message, `Unknown identifier ${workspace} for workspace`);
    assert.equal(await context.server.countRows('workspace', 'name', 'taken'), 0);
  });

  it('without a valid token the request is refused before GraphQL, with a GraphQL-shaped 401', async () => {
    for (const token of [null, 'not-a-jwt']) {
      const response = await context.server.request('POST', '/graphql/api/v1', {
        token,
        headers: { 'content-type': 'application/json' },
        raw: JSON.stringify({ query: '{ organization { edges { node { id } } } }' }),
      });
      assert.equal(response.status, 401);
      assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.deepEqual(Object.keys(response.body), ['errors']);
      assert.equal(response.body.errors[0].extensions.code, 'unauthorized');
    }
  });
});

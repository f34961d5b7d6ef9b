import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { registry } from '../src/resources/index.ts';
import { createOrganization, createRecord, createVcs, createWorkspace, describeEachStore } from './harness.ts';
import { data, errors, graphql, literal, nodes } from './graphql-helpers.ts';

describeEachStore('GraphQL reads', (context) => {
  let acme = '';
  let beta = '';
  let vcs = '';
  const ws: Record<string, string> = {};

  before(async () => {
    const { server } = context;
    acme = await createOrganization(server, { name: 'acme' });
    beta = await createOrganization(server, { name: 'beta' });
    vcs = await createVcs(server, acme, { name: 'github', clientSecret: 'cs-2f1c', privateKey: 'pk' });
    for (const name of ['delta', 'alpha', 'charlie', 'bravo']) ws[name] = await createWorkspace(server, acme, { name });
    ws.other = await createWorkspace(server, beta, { name: 'other' });
    await server.patch(`/api/v1/workspace/${ws.alpha}/relationships/vcs`, { data: { type: 'vcs', id: vcs } });
    for (const [key, value, sensitive] of [
      ['region', 'eu-west-1', false],
      ['AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI', true],
    ] as const) {
      await createRecord(server, `/api/v1/workspace/${ws.alpha}/variable`, 'variable', { key, value, category: 'ENV', sensitive });
    }
  });

  it('every declared resource has its root field, Relay connection, node and input type', async () => {
    const schema = await data(context.server, '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }');
    const declared = [...registry.all()].map((resource) => resource.type).sort();
    assert.deepEqual(schema.__schema.queryType.fields.map((f: { name: string }) => f.name).sort(), declared);
    assert.deepEqual(schema.__schema.mutationType.fields.map((f: { name: string }) => f.name).sort(), declared);
    const types = await data(
      context.server,
      '{ w: __type(name: "Workspace") { fields { name } } i: __type(name: "WorkspaceInput") { inputFields { name } } }',
    );
    const fields = types.w.fields.map((f: { name: string }) => f.name);
    for (const name of ['id', 'name', 'lastJobStatus', 'organization', 'vcs', 'variable', 'reference'])
      assert.ok(fields.includes(name), name);
    const inputs = types.i.inputFields.map((f: { name: string }) => f.name);
    assert.ok(
      inputs.includes('name') && inputs.includes('vcs') && !inputs.includes('lastJobStatus') && !inputs.includes('createdDate'),
      inputs.join(),
    );
  });

  it('a root list filters with RSQL, sorts, and pages with first and after', async () => {
    const page = (args: string) =>
      data(
        context.server,
        `{ workspace(${args}) { edges { node { name } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor totalRecords } } }`,
      );
    const first = await page(`filter: ${literal(`organization.name==acme`)}, sort: "-name", first: 3`);
    assert.deepEqual(nodes(first.workspace), [{ name: 'delta' }, { name: 'charlie' }, { name: 'bravo' }]);
    assert.deepEqual(first.workspace.pageInfo, {
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: '0',
      endCursor: '3',
      totalRecords: 4,
    });
    const next = await page(`filter: ${literal(`organization.name==acme`)}, sort: "-name", first: "3", after: "3"`);
    assert.deepEqual(nodes(next.workspace), [{ name: 'alpha' }]);
    assert.deepEqual(next.workspace.pageInfo, {
      hasNextPage: false,
      hasPreviousPage: true,
      startCursor: '3',
      endCursor: '4',
      totalRecords: 4,
    });
    const wild = await page(`filter: ${literal('name==*a;name=out=(alpha)')}`);
    assert.deepEqual(nodes(wild.workspace), [{ name: 'delta' }]);
  });

  it('ids select records; an id that names none, or a record of no type of this field, reads nothing', async () => {
    const read = await data(
      context.server,
      `{ workspace(ids: [${literal(ws.bravo ?? '')}, "nope", ${literal(acme)}]) { edges { node { id name } } } }`,
    );
    assert.deepEqual(nodes(read.workspace), [{ id: ws.bravo, name: 'bravo' }]);
  });

  it('nested to-many relationships take their own filter, sort and page, per record that holds them', async () => {
    const read = await data(
      context.server,
      `{ organization(sort: "name") { edges { node { name workspace(sort: "name", first: 2) { edges { node { name } } pageInfo { hasNextPage totalRecords } } } } } }`,
    );
    assert.deepEqual(
      read.organization.edges.map((e: { node: { name: string; workspace: { edges: unknown[]; pageInfo: unknown } } }) => [
        e.node.name,
        nodes(e.node.workspace as never),
        e.node.workspace.pageInfo,
      ]),
      [
        ['acme', [{ name: 'alpha' }, { name: 'bravo' }], { hasNextPage: true, totalRecords: 4 }],
        ['beta', [{ name: 'other' }], { hasNextPage: false, totalRecords: 1 }],
      ],
    );
    const filtered = await data(
      context.server,
      `{ organization(ids: [${literal(acme)}]) { edges { node { workspace(filter: "name=in=(bravo,delta)", ids: [${literal(ws.delta ?? '')}]) { edges { node { name } } } } } } }`,
    );
    assert.deepEqual(nodes(filtered.organization.edges[0].node.workspace), [{ name: 'delta' }]);
  });

  it('to-one relationships are connections of one record or none, the parent included', async () => {
    const read = await data(
      context.server,
      `{ workspace(filter: "name=in=(alpha,bravo)", sort: "name") { edges { node { name organization { edges { node { name } } } vcs { edges { node { id name } } } } } } }`,
    );
    assert.deepEqual(nodes(read.workspace), [
      { name: 'alpha', organization: { edges: [{ node: { name: 'acme' } }] }, vcs: { edges: [{ node: { id: vcs, name: 'github' } }] } },
      { name: 'bravo', organization: { edges: [{ node: { name: 'acme' } }] }, vcs: { edges: [] } },
    ]);
    const back = await data(context.server, `{ vcs { edges { node { workspace { edges { node { name } } } } } } }`);
    assert.deepEqual(nodes(back.vcs), [{ workspace: { edges: [{ node: { name: 'alpha' } }] } }]);
  });

  it('secrets read null wherever they are read, nested or not', async () => {
    const read = await data(
      context.server,
      `{ vcs { edges { node { clientSecret privateKey accessToken clientId } } }
         workspace(ids: [${literal(ws.alpha ?? '')}]) { edges { node { variable(sort: "key") { edges { node { key value sensitive } } } } } } }`,
    );
    assert.deepEqual(nodes(read.vcs), [{ clientSecret: null, privateKey: null, accessToken: null, clientId: null }]);
    assert.deepEqual(nodes(read.workspace.edges[0].node.variable), [
      { key: 'AWS_SECRET_ACCESS_KEY', value: null, sensitive: true },
      { key: 'region', value: 'eu-west-1', sensitive: false },
    ]);
  });

  it('a filter or order on a secret, an unknown attribute or bad RSQL is an error of that field, with its argument', async () => {
    const cases: [string, string][] = [
      ['{ variable(filter: "value==x") { edges { node { id } } } }', 'filter'],
      ['{ variable(sort: "value") { edges { node { id } } } }', 'sort'],
      ['{ vcs(filter: "clientSecret==cs-2f1c") { edges { node { id } } } }', 'filter'],
      ['{ workspace(filter: "nope==1") { edges { node { id } } } }', 'filter'],
      ['{ workspace(filter: "name==") { edges { node { id } } } }', 'filter'],
      ['{ workspace(first: 10001) { edges { node { id } } } }', 'first'],
      ['{ workspace(first: 0) { edges { node { id } } } }', 'first'],
      ['{ workspace(after: "-1") { edges { node { id } } } }', 'after'],
    ];
    for (const [query, argument] of cases) {
      const [error, ...more] = await errors(context.server, query);
      assert.equal(more.length, 0, query);
      assert.deepEqual(
        { ...error?.extensions, message: undefined },
        { code: 'invalid_argument', status: 400, argument, message: undefined },
        query,
      );
    }
  });

  it('a refused argument of a nested field is reported once, not once per record that holds it', async () => {
    const found = await errors(
      context.server,
      `{ workspace { edges { node { name variable(sort: "value") { edges { node { id } } } } } } }`,
    );
    assert.equal(found.length, 1);
    assert.deepEqual(found[0]?.path?.slice(-1), ['variable']);
  });

  it('relationships Stratum does not model yet read as empty lists and take the list arguments', async () => {
    const read = await data(
      context.server,
      `{ organization(ids: [${literal(acme)}]) { edges { node { project(ids: ["p"]) { edges { node { id name } } pageInfo { totalRecords } } tag { edges { node { id } } } } } } }`,
    );
    assert.deepEqual(read.organization.edges[0].node, { project: { edges: [], pageInfo: { totalRecords: 0 } }, tag: { edges: [] } });
  });

  it('unknown fields and syntax errors are validation errors: no data, the position, no trace of the code', async () => {
    const response = await graphql(context.server, '{ workspace { edges { node { nope } } } }');
    assert.equal(response.status, 200);
    assert.deepEqual(Object.keys(response.body), ['errors']);
    assert.deepEqual(response.body.errors, [
      {
        message: 'Cannot query field "nope" on type "Workspace". Did you mean "name"?',
        locations: [{ line: 1, column: 30 }],
        extensions: { code: 'invalid_query', status: 400 },
      },
    ]);
    const [syntax] = await errors(context.server, '{ workspace { ');
    assert.match(syntax?.message ?? '', /^Syntax Error/);
  });
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import {
  assertError,
  createOrganization,
  createRecord,
  createTemplate,
  createVcs,
  createWorkspace,
  describeEachStore,
  type RequestOptions,
} from './harness.ts';

/** The media type Terrakube's web UI sends and asks for, written as it writes it (no space). */
const atomic = 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"';
const atomicHeaders = { 'content-type': atomic, accept: atomic };

describeEachStore('JSON:API atomic operations', (context) => {
  let organization: string;
  const workspaces = () => `/api/v1/organization/${organization}/workspace`;
  const post = (operations: unknown[], options: RequestOptions = {}) =>
    context.server.request('POST', '/api/v1/operations', {
      body: { 'atomic:operations': operations },
      ...options,
      headers: { ...atomicHeaders, ...options.headers },
    });
  const workspaceNamed = async (name: string) =>
    (await context.server.get(`${workspaces()}?filter[workspace]=name=='${name}'`)).body.data as {
      id: string;
      attributes: Record<string, unknown>;
    }[];

  before(async () => {
    organization = await createOrganization(context.server);
  });

  it('creates a workspace exactly as the web UI create wizard sends it: 200, and the new id in atomic:results', async () => {
    const template = await createTemplate(context.server, organization);
    const vcs = await createVcs(context.server, organization);
    const ssh = await createRecord(context.server, `/api/v1/organization/${organization}/ssh`, 'ssh', {
      name: 'modules',
      sshType: 'rsa',
      privateKey: 'key',
    });
    const project = await createRecord(context.server, `/api/v1/organization/${organization}/project`, 'project', { name: 'apps' });
    const name = `wizard-${randomUUID()}`;
    const lid = randomUUID();
    const response = await post([
      {
        op: 'add',
        href: `/organization/${organization}/workspace`,
        data: {
          type: 'workspace',
          lid,
          attributes: {
            source: 'https://github.com/acme/network.git',
            folder: '/',
            name,
            terraformVersion: '1.9.5',
            branch: 'main',
            iacType: 'terraform',
            defaultTemplate: template,
            executionMode: 'remote',
          },
          relationships: {
            vcs: { data: { type: 'vcs', id: vcs } },
            ssh: { data: { type: 'ssh', id: ssh } },
            project: { data: { type: 'project', id: project } },
          },
        },
      },
    ]);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.headers.get('content-type'), 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"');
    const [result] = response.body['atomic:results'];
    assert.equal(result.data.type, 'workspace');
    // A result is the resource object as stored; lid names a record only inside the request.
    assert.deepEqual(Object.keys(result.data).sort(), ['attributes', 'id', 'relationships', 'type']);
    assert.equal(result.data.attributes.name, name);
    const read = await context.server.get(`${workspaces()}/${String(result.data.id)}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.data.attributes, result.data.attributes);
    assert.deepEqual(
      ['vcs', 'ssh', 'project'].map((link) => read.body.data.relationships[link].data.id),
      [vcs, ssh, project],
    );
  });

  it('creates a CLI-driven workspace with empty relationships, as the wizard sends it', async () => {
    const name = `cli-${randomUUID()}`;
    const response = await post([
      {
        op: 'add',
        href: `/organization/${organization}/workspace`,
        data: {
          type: 'workspace',
          lid: randomUUID(),
          attributes: {
            source: 'empty',
            folder: '/',
            name,
            terraformVersion: '1.8.0',
            branch: 'remote-content',
            iacType: 'tofu',
            executionMode: 'local',
          },
          relationships: {},
        },
      },
    ]);
    assert.equal(response.status, 200, response.text);
    assert.equal((await workspaceNamed(name))[0]?.attributes.branch, 'remote-content');
  });

  it('saves the workspace settings as the web UI sends them: 200, with an empty result, and the changes stay', async () => {
    const id = await createWorkspace(context.server, organization);
    const template = await createTemplate(context.server, organization);
    const settings = {
      name: `settings-${randomUUID()}`,
      description: 'Network of production',
      folder: '/prod',
      executionMode: 'local',
      terraformVersion: '1.10.5',
      iacType: 'terraform',
      branch: 'release',
      defaultTemplate: template,
    };
    const saved = await post([
      { op: 'update', href: `/organization/${organization}/workspace/${id}`, data: { type: 'workspace', id, attributes: settings } },
    ]);
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual(saved.body, { 'atomic:results': [{}] });
    const read = (await context.server.get(`${workspaces()}/${id}`)).body.data.attributes;
    for (const [key, value] of Object.entries(settings)) assert.equal(read[key], value, key);
    // The SSH key page clears the module key the same way.
    const cleared = await post([
      {
        op: 'update',
        href: `/organization/${organization}/workspace/${id}`,
        data: { type: 'workspace', id, attributes: { moduleSshKey: '' } },
      },
    ]);
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal((await context.server.get(`${workspaces()}/${id}`)).body.data.attributes.moduleSshKey, '');
  });

  it('runs the operations in order in one transaction: a failing one undoes every earlier one and its error points into it', async () => {
    const name = `rolled-back-${randomUUID()}`;
    const response = await post([
      { op: 'add', href: `/organization/${organization}/workspace`, data: { type: 'workspace', lid: 'w', attributes: { name } } },
      {
        op: 'add',
        data: {
          type: 'variable',
          attributes: { key: 'region', value: 'eu', category: 'TERRAFORM' },
          relationships: { workspace: { data: { type: 'workspace', lid: 'w' } } },
        },
      },
      { op: 'update', ref: { type: 'workspace', lid: 'w' }, data: { type: 'workspace', lid: 'w', attributes: { description: 'changed' } } },
      {
        op: 'add',
        data: {
          type: 'variable',
          attributes: { key: 'not an env name', category: 'ENV' },
          relationships: { workspace: { data: { type: 'workspace', lid: 'w' } } },
        },
      },
    ]);
    assertError(response, 422, '/atomic:operations/3/data/attributes/key');
    assert.deepEqual(await workspaceNamed(name), []);
    assert.equal(await context.server.countRows('variable', 'key', 'region'), 0);
  });

  it('undoes the batch when the database refuses an operation (a duplicate name), on either store', async () => {
    const name = `twice-${randomUUID()}`;
    const add = { op: 'add', href: `/organization/${organization}/workspace`, data: { type: 'workspace', attributes: { name } } };
    assertError(await post([add, add]), 409, '/atomic:operations/1/data/attributes/name');
    assert.deepEqual(await workspaceNamed(name), []);
    // The store is fine afterwards: the same operation alone succeeds.
    assert.equal((await post([add])).status, 200);
  });

  it('answers an unknown record (404) and a missing permission (403) for the operation that meets it, and stores nothing', async () => {
    const name = `denied-${randomUUID()}`;
    const add = { op: 'add', href: `/organization/${organization}/workspace`, data: { type: 'workspace', attributes: { name } } };
    assertError(await post([add, { op: 'remove', ref: { type: 'workspace', id: randomUUID() } }]), 404, '/atomic:operations/1');
    const group = `readers-${randomUUID()}`;
    await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: group, role: 'read' });
    const reader = await context.server.token({ groups: [group] });
    assertError(await post([add], { token: reader }), 403, '/atomic:operations/0');
    const outsider = await context.server.token({ groups: [`outsider-${randomUUID()}`] });
    assertError(await post([add], { token: outsider }), 404, '/atomic:operations/0');
    assertError(await post([add], { token: null }), 401);
    assert.deepEqual(await workspaceNamed(name), []);
  });

  it('lets later operations name the records earlier ones created by their lid: in ref, in relationships and as a parent', async () => {
    const name = `lids-${randomUUID()}`;
    const response = await post([
      { op: 'add', href: `/organization/${organization}/workspace`, data: { type: 'workspace', lid: 'ws', attributes: { name } } },
      {
        op: 'add',
        href: `/organization/${organization}/vcs`,
        data: { type: 'vcs', lid: 'git', attributes: { name: 'git', vcsType: 'GITLAB' } },
      },
      {
        op: 'add',
        data: {
          type: 'variable',
          lid: 'var',
          attributes: { key: 'A', category: 'ENV' },
          relationships: { workspace: { data: { type: 'workspace', lid: 'ws' } } },
        },
      },
      { op: 'update', ref: { type: 'workspace', lid: 'ws', relationship: 'vcs' }, data: { type: 'vcs', lid: 'git' } },
      { op: 'update', data: { type: 'variable', lid: 'var', attributes: { value: 'x' } } },
      { op: 'add', href: `/organization/${organization}/collection`, data: { type: 'collection', lid: 'col', attributes: { name } } },
      {
        op: 'add',
        data: {
          type: 'reference',
          relationships: {
            collection: { data: { type: 'collection', lid: 'col' } },
            workspace: { data: { type: 'workspace', lid: 'ws' } },
          },
        },
      },
      { op: 'remove', ref: { type: 'variable', lid: 'var' } },
    ]);
    assert.equal(response.status, 200, response.text);
    const results = response.body['atomic:results'];
    assert.equal(results.length, 8);
    assert.deepEqual(
      results.map((r: { data?: { type: string; lid?: string } }) => r.data?.lid ?? r.data?.type ?? null),
      ['workspace', 'vcs', 'variable', null, null, 'collection', 'reference', null],
    );
    const [workspace] = await workspaceNamed(name);
    assert.equal(workspace?.id, results[0].data.id);
    const read = await context.server.get(`${workspaces()}/${String(workspace?.id)}?include=variable,reference`);
    assert.equal(read.body.data.relationships.vcs.data.id, results[1].data.id);
    assert.deepEqual(read.body.data.relationships.variable.data, []);
    assert.deepEqual(read.body.data.relationships.reference.data, [{ type: 'reference', id: results[6].data.id }]);
  });

  it('refuses a lid no earlier operation defined, one defined twice, and one of another type (nothing stored)', async () => {
    const name = `bad-lid-${randomUUID()}`;
    const add = { op: 'add', href: `/organization/${organization}/workspace`, data: { type: 'workspace', lid: 'w', attributes: { name } } };
    assertError(await post([add, { op: 'remove', ref: { type: 'workspace', lid: 'nope' } }]), 400, '/atomic:operations/1/ref/lid');
    assertError(
      await post([add, { ...add, data: { ...add.data, attributes: { name: `${name}-2` } } }]),
      400,
      '/atomic:operations/1/data/lid',
    );
    assertError(await post([add, { op: 'remove', ref: { type: 'vcs', lid: 'w' } }]), 422, '/atomic:operations/1/ref/type');
    assert.deepEqual(await workspaceNamed(name), []);
  });

  it('removes records and changes to-one relationships by href and by ref; to-many ones change through their records', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const vcs = await createVcs(context.server, organization);
    const variable = await createRecord(context.server, `/api/v1/workspace/${workspace}/variable`, 'variable', {
      key: 'k',
      category: 'TERRAFORM',
    });
    const linked = await post([
      { op: 'update', href: `/api/v1/workspace/${workspace}/relationships/vcs`, data: { type: 'vcs', id: vcs } },
      { op: 'remove', href: `/workspace/${workspace}/variable/${variable}` },
    ]);
    assert.equal(linked.status, 200, linked.text);
    assert.deepEqual(linked.body['atomic:results'], [{}, {}]);
    const read = await context.server.get(`${workspaces()}/${workspace}?include=variable`);
    assert.equal(read.body.data.relationships.vcs.data.id, vcs);
    assert.deepEqual(read.body.data.relationships.variable.data, []);
    assert.equal((await post([{ op: 'update', ref: { type: 'workspace', id: workspace, relationship: 'vcs' }, data: null }])).status, 200);
    assert.equal((await context.server.get(`${workspaces()}/${workspace}`)).body.data.relationships.vcs.data, null);
    assertError(
      await post([{ op: 'add', ref: { type: 'workspace', id: workspace, relationship: 'variable' }, data: [] }]),
      403,
      '/atomic:operations/0',
    );
    assertError(
      await post([{ op: 'add', ref: { type: 'workspace', id: workspace, relationship: 'vcs' }, data: { type: 'vcs', id: vcs } }]),
      400,
      '/atomic:operations/0/op',
    );
    assert.equal((await post([{ op: 'remove', ref: { type: 'workspace', id: workspace } }])).status, 200);
    assertError(await context.server.get(`${workspaces()}/${workspace}`), 404);
  });

  it('takes the atomic media type only: 415 without the extension or with another one, 406 when Accept rules out the answer', async () => {
    const operations = [
      {
        op: 'add',
        href: `/organization/${organization}/workspace`,
        data: { type: 'workspace', attributes: { name: `media-${randomUUID()}` } },
      },
    ];
    for (const contentType of [
      'application/vnd.api+json',
      'application/json',
      'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic https://example.com/ext/other"',
      'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"; charset=utf-8',
      'application/vnd.api+json; ext=https://jsonapi.org/ext/atomic',
    ]) {
      assertError(await post(operations, { headers: { 'content-type': contentType } }), 415);
    }
    for (const accept of ['application/vnd.api+json; ext="https://example.com/ext/other"', 'application/vnd.api+json; charset=utf-8']) {
      assertError(await post(operations, { headers: { accept } }), 406);
    }
    for (const accept of [
      '*/*',
      'application/json, text/plain, */*',
      'application/vnd.api+json',
      `${atomic}, application/vnd.api+json; ext="x"`,
    ]) {
      const response = await post([{ ...operations[0], data: { type: 'workspace', attributes: { name: `media-${randomUUID()}` } } }], {
        headers: { accept },
      });
      assert.equal(response.status, 200, `${accept}: ${response.text}`);
    }
    const spaced = await post([{ ...operations[0], data: { type: 'workspace', attributes: { name: `media-${randomUUID()}` } } }], {
      headers: { 'content-type': 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"; profile="https://example.com/p"' },
    });
    assert.equal(spaced.status, 200, spaced.text);
  });

  it('is described in the API description, with the atomic media type and the bound on operations', async () => {
    const { paths, components } = (await context.server.get('/api/openapi.json', { token: null })).body;
    const operation = paths['/api/v1/operations'].post;
    const content = operation.requestBody.content['application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"'];
    assert.equal(content.schema.$ref, '#/components/schemas/AtomicOperationsDocument');
    assert.equal(components.schemas.AtomicOperationsDocument.properties['atomic:operations'].maxItems, 100);
    assert.ok(operation.responses['200'] !== undefined && operation.responses['415'] !== undefined);
  });

  it('refuses malformed documents and operations with 400 pointing at the fault, and more than 100 operations', async () => {
    const raw = (body: unknown) => context.server.request('POST', '/api/v1/operations', { body, headers: atomicHeaders });
    assertError(await raw([]), 400);
    // A relationship named __proto__ is an unknown relationship like any other, not lost on the way.
    const proto = `{"atomic:operations":[{"op":"add","href":"/organization/${organization}/workspace","data":{"type":"workspace","attributes":{"name":"p"},"relationships":{"__proto__":{"data":null}}}}]}`;
    assertError(
      await context.server.request('POST', '/api/v1/operations', { raw: proto, headers: atomicHeaders }),
      400,
      '/atomic:operations/0/data/relationships/__proto__',
    );
    assertError(await raw({ 'atomic:operations': [] }), 400, '/atomic:operations');
    assertError(
      await raw({ 'atomic:operations': [{ op: 'remove', ref: { type: 'workspace', id: randomUUID() } }], data: null }),
      400,
      '/data',
    );
    const remove = { op: 'remove', ref: { type: 'workspace', id: randomUUID() } };
    assertError(await post(Array.from({ length: 101 }, () => remove)), 400, '/atomic:operations');
    assertError(await post(['x']), 400, '/atomic:operations/0');
    assertError(await post([{ op: 'replace', ref: remove.ref }]), 400, '/atomic:operations/0/op');
    assertError(await post([{ ...remove, href: '/workspace' }]), 400, '/atomic:operations/0/ref');
    assertError(await post([{ ...remove, extra: 1 }]), 400, '/atomic:operations/0/extra');
    assertError(await post([{ op: 'remove', ref: { type: 'nothing', id: 'x' } }]), 400, '/atomic:operations/0/ref/type');
    assertError(await post([{ op: 'remove', href: `/organization/${organization}?x=1` }]), 400, '/atomic:operations/0/href');
    assertError(await post([{ op: 'remove', href: '/nothing/here' }]), 404, '/atomic:operations/0/href');
    assertError(
      await post([{ op: 'add', data: { type: 'variable', attributes: { key: 'k', category: 'ENV' } } }]),
      400,
      '/atomic:operations/0/data/relationships/workspace',
    );
    assertError(
      await post([{ op: 'add', href: `/organization/${organization}/workspace`, data: { type: 'workspace', attributes: { name: 1 } } }]),
      422,
      '/atomic:operations/0/data/attributes/name',
    );
  });
});

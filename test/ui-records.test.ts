import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import { errors, literal } from './graphql-helpers.ts';
import {
  assertError,
  createOrganization,
  createRecord,
  createTemplate,
  createWorkspace,
  describeEachStore,
  resourceDocument,
  type TestServer,
} from './harness.ts';

/** The attributes of a record without its audit stamps, to compare with what was sent. */
function withoutAudit(attributes: Record<string, unknown>): Record<string, unknown> {
  const { createdBy: _createdBy, createdDate: _createdDate, updatedBy: _updatedBy, updatedDate: _updatedDate, ...rest } = attributes;
  return rest;
}

/** Each organization record the web UI's pages load: what it creates, what a change sends, and what it reads back. */
const records = {
  project: {
    create: { name: 'platform', description: '' },
    read: { name: 'platform', description: '' },
    update: { name: 'platform-renamed', description: 'Shared infrastructure' },
  },
  tag: { create: { name: 'production' }, read: { name: 'production' }, update: { name: 'prod' } },
  globalvar: {
    create: { key: 'region', value: 'eu-west-1', category: 'TERRAFORM' },
    read: { key: 'region', value: 'eu-west-1', description: null, category: 'TERRAFORM', sensitive: false, hcl: false },
    update: { value: 'eu-central-1', description: 'Default region', hcl: true },
  },
  ssh: {
    create: { name: 'deploy-key', description: 'Modules', sshType: 'ed25519', privateKey: '-----BEGIN OPENSSH PRIVATE KEY-----' },
    read: { name: 'deploy-key', description: 'Modules', sshType: 'ed25519', privateKey: null },
    update: { description: 'Module sources', sshType: 'rsa' },
  },
  agent: {
    create: { name: 'eu-pool', description: 'Executors in Frankfurt', url: 'http://executor.eu.internal:8090' },
    read: { name: 'eu-pool', description: 'Executors in Frankfurt', url: 'http://executor.eu.internal:8090' },
    update: { url: 'http://executor-2.eu.internal:8090' },
  },
} as const;
type RecordType = keyof typeof records;

const createIn = (server: TestServer, organization: string, type: RecordType, attributes: Record<string, unknown> = {}) =>
  createRecord(server, `/api/v1/organization/${organization}/${type}`, type, { ...records[type].create, ...attributes });

describeEachStore('the organization records the web UI loads', (context) => {
  let organization: string;
  let foreign: string;
  const path = (type: string, id?: string, org = organization) => `/api/v1/organization/${org}/${type}${id === undefined ? '' : `/${id}`}`;
  const tagsOf = (workspace: string, org = organization) => `/api/v1/organization/${org}/workspace/${workspace}/workspaceTag`;
  /** A workspace tag as the web UI sends it. */
  const workspaceTagDocument = (tagId: string) => ({ data: { type: 'workspacetag', attributes: { tagId } } });

  before(async () => {
    organization = await createOrganization(context.server);
    foreign = await createOrganization(context.server);
  });

  it('answers the lists the web UI pages load with 200, empty for a new organization', async () => {
    const fresh = await createOrganization(context.server);
    const workspace = await createWorkspace(context.server, fresh);
    for (const url of [...Object.keys(records).map((type) => path(type, undefined, fresh)), tagsOf(workspace, fresh)]) {
      const response = await context.server.get(url);
      assert.equal(response.status, 200, `${url}: ${response.text}`);
      assert.deepEqual(response.body.data, [], url);
    }
  });

  for (const type of Object.keys(records) as RecordType[]) {
    it(`serves ${type} records with full CRUD under the organization`, async () => {
      const created = await context.server.post(path(type), resourceDocument(type, records[type].create));
      assert.equal(created.status, 201, created.text);
      const { id } = created.body.data;
      assert.equal(created.headers.get('location'), path(type, id));
      assert.deepEqual(withoutAudit(created.body.data.attributes), records[type].read);
      assert.deepEqual(created.body.data.relationships.organization, { data: { type: 'organization', id: organization } });
      const listed = await context.server.get(`${path(type)}?filter[${type}]=id==${id}`);
      assert.deepEqual(listed.body.data, [created.body.data]);
      const patched = await context.server.patch(path(type, id), resourceDocument(type, records[type].update, { id }));
      assert.equal(patched.status, 204, patched.text);
      const read = await context.server.get(path(type, id));
      assert.deepEqual(withoutAudit(read.body.data.attributes), { ...records[type].read, ...records[type].update });
      const included = await context.server.get(`/api/v1/organization/${organization}?include=${type}`);
      assert.ok(
        included.body.included.some((r: { id: string }) => r.id === id),
        `include=${type}`,
      );
      assert.equal((await context.server.delete(path(type, id))).status, 204);
      assertError(await context.server.get(path(type, id)), 404);
    });
  }

  it('keeps project and tag names and global variable keys unique in an organization; SSH key and agent names may repeat', async () => {
    const name = `unique-${randomUUID()}`;
    for (const [type, attribute] of [
      ['project', 'name'],
      ['tag', 'name'],
      ['globalvar', 'key'],
    ] as const) {
      await createIn(context.server, organization, type, { [attribute]: name });
      assertError(
        await context.server.post(path(type), resourceDocument(type, { ...records[type].create, [attribute]: name })),
        409,
        `/data/attributes/${attribute}`,
      );
      // Another organization has a name space of its own.
      await createIn(context.server, foreign, type, { [attribute]: name });
    }
    for (const type of ['ssh', 'agent'] as const) {
      await createIn(context.server, organization, type, { name });
      await createIn(context.server, organization, type, { name });
    }
  });

  it('checks the values of the new records: required, enumerations and ENV keys (422), unknown attributes (400)', async () => {
    assertError(
      await context.server.post(path('ssh'), resourceDocument('ssh', { name: 'k', privateKey: 'x' })),
      422,
      '/data/attributes/sshType',
    );
    assertError(
      await context.server.post(path('ssh'), resourceDocument('ssh', { name: 'k', privateKey: 'x', sshType: 'dsa' })),
      422,
      '/data/attributes/sshType',
    );
    assertError(await context.server.post(path('agent'), resourceDocument('agent', { name: 'pool' })), 422, '/data/attributes/url');
    assertError(
      await context.server.post(path('globalvar'), resourceDocument('globalvar', { key: 'not an env name', category: 'ENV' })),
      422,
      '/data/attributes/key',
    );
    assertError(
      await context.server.post(path('tag'), resourceDocument('tag', { name: 'x', color: 'red' })),
      400,
      '/data/attributes/color',
    );
  });

  it('keeps a sensitive global variable write-only like a workspace variable: null on every read, never readable again', async () => {
    const secret = `global-secret-${randomUUID()}`;
    const created = await context.server.post(
      path('globalvar'),
      resourceDocument('globalvar', { key: 'TOKEN', value: secret, category: 'ENV', sensitive: true }),
    );
    assert.equal(created.status, 201, created.text);
    const { id } = created.body.data;
    assert.equal(created.body.data.attributes.value, null);
    for (const url of [path('globalvar', id), path('globalvar'), `/api/v1/organization/${organization}?include=globalvar`]) {
      const response = await context.server.get(url);
      assert.equal(response.status, 200);
      assert.ok(!response.text.includes(secret), url);
    }
    assertError(await context.server.get(`${path('globalvar')}?filter[globalvar]=value==x`), 400);
    assertError(
      await context.server.patch(path('globalvar', id), resourceDocument('globalvar', { sensitive: false }, { id })),
      422,
      '/data/attributes/sensitive',
    );
    const [row] = await context.server.query('select value from globalvar where id = $1', [id]);
    assert.match(String(row?.value), /^s1:/);
  });

  it('keeps an SSH private key write-only: null on every read, sealed, and not a filter or a sort', async () => {
    const secret = `-----BEGIN OPENSSH PRIVATE KEY----- ${randomUUID()}`;
    const id = await createIn(context.server, organization, 'ssh', { privateKey: secret });
    for (const url of [path('ssh', id), path('ssh'), `/api/v1/organization/${organization}?include=ssh`]) {
      const response = await context.server.get(url);
      assert.equal(response.status, 200);
      assert.ok(!response.text.includes(secret), url);
    }
    assertError(await context.server.get(`${path('ssh')}?filter[ssh]=privateKey==x`), 400);
    assertError(await context.server.get(`${path('ssh')}?sort=privateKey`), 400);
    const [row] = await context.server.query('select private_key from ssh where id = $1', [id]);
    assert.match(String(row?.private_key), /^s1:/);
  });

  it('tags a workspace as the web UI does: workspacetag records with a tagId, listed at workspaceTag, unique per workspace', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const tag = await createIn(context.server, organization, 'tag', { name: `tag-${randomUUID()}` });
    const created = await context.server.post(tagsOf(workspace), workspaceTagDocument(tag));
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.type, 'workspacetag');
    assert.equal(created.body.data.attributes.tagId, tag);
    assert.deepEqual(created.body.data.relationships.tag, { data: { type: 'tag', id: tag } });
    const listed = await context.server.get(tagsOf(workspace));
    assert.deepEqual(
      listed.body.data.map((r: { id: string; attributes: { tagId: string } }) => [r.id, r.attributes.tagId]),
      [[created.body.data.id, tag]],
    );
    assert.equal((await context.server.get(`/api/v1/workspace/${workspace}/workspaceTag`)).body.data.length, 1);
    const withTags = await context.server.get(`/api/v1/organization/${organization}/workspace/${workspace}?include=workspaceTag.tag`);
    assert.deepEqual(withTags.body.data.relationships.workspaceTag.data, [{ type: 'workspacetag', id: created.body.data.id }]);
    assert.ok(withTags.body.included.some((r: { type: string; id: string }) => r.type === 'tag' && r.id === tag));
    assertError(await context.server.post(tagsOf(workspace), workspaceTagDocument(tag)), 409, '/data/attributes/tagId');
    assert.equal((await context.server.delete(`${tagsOf(workspace)}/${String(created.body.data.id)}`)).status, 204);
    assert.deepEqual((await context.server.get(tagsOf(workspace))).body.data, []);
  });

  it('refuses a workspace tag naming a tag of another organization, or no tag at all (422 at tagId)', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const foreignTag = await createIn(context.server, foreign, 'tag', { name: `tag-${randomUUID()}` });
    for (const tagId of [foreignTag, randomUUID(), 'not-a-uuid']) {
      assertError(await context.server.post(tagsOf(workspace), workspaceTagDocument(tagId)), 422, '/data/attributes/tagId');
    }
    assertError(
      await context.server.post(tagsOf(workspace), { data: { type: 'workspacetag', attributes: {} } }),
      422,
      '/data/attributes/tagId',
    );
    assert.deepEqual((await context.server.get(tagsOf(workspace))).body.data, []);
  });

  it('detaches a deleted tag from every workspace', async () => {
    const tag = await createIn(context.server, organization, 'tag', { name: `tag-${randomUUID()}` });
    const workspaces = [await createWorkspace(context.server, organization), await createWorkspace(context.server, organization)];
    for (const workspace of workspaces) assert.equal((await context.server.post(tagsOf(workspace), workspaceTagDocument(tag))).status, 201);
    assert.equal((await context.server.delete(path('tag', tag))).status, 204);
    for (const workspace of workspaces) assert.deepEqual((await context.server.get(tagsOf(workspace))).body.data, []);
    assert.equal(await context.server.countRows('workspace_tag', 'tag_id', tag), 0);
  });

  it('links a workspace to a project, an SSH key and an agent pool of its organization, in the create body and one at a time', async () => {
    const links = {
      project: await createIn(context.server, organization, 'project', { name: `p-${randomUUID()}` }),
      ssh: await createIn(context.server, organization, 'ssh'),
      agent: await createIn(context.server, organization, 'agent'),
    };
    const relationships = Object.fromEntries(Object.entries(links).map(([type, id]) => [type, { data: { type, id } }]));
    const created = await context.server.post(
      `/api/v1/organization/${organization}/workspace`,
      resourceDocument('workspace', { name: `ws-${randomUUID()}` }, { relationships }),
    );
    assert.equal(created.status, 201, created.text);
    for (const [type, id] of Object.entries(links)) assert.deepEqual(created.body.data.relationships[type], { data: { type, id } });
    const workspace = await createWorkspace(context.server, organization);
    const workspacePath = `/api/v1/organization/${organization}/workspace/${workspace}`;
    for (const [type, id] of Object.entries(links)) {
      const linked = await context.server.request('PATCH', `${workspacePath}/relationships/${type}`, { body: { data: { type, id } } });
      assert.equal(linked.status, 204, linked.text);
      assert.deepEqual((await context.server.get(`${workspacePath}/relationships/${type}`)).body.data, { type, id });
      assert.equal((await context.server.get(`${workspacePath}/${type}`)).body.data.id, id);
    }
    // The workspace page's include list, with the links it now has.
    const page = await context.server.get(
      `${workspacePath}?include=job,variable,history,schedule,vcs,agent,organization,webhook,reference,project`,
    );
    const included = (page.body.included as { type: string; id: string }[]).map((r) => `${r.type}:${r.id}`);
    assert.ok(included.includes(`agent:${links.agent}`) && included.includes(`project:${links.project}`), included.join());
    // The web UI's settings page unlinks the agent pool with null.
    assert.equal((await context.server.request('PATCH', `${workspacePath}/relationships/agent`, { body: { data: null } })).status, 204);
    assert.equal((await context.server.get(workspacePath)).body.data.relationships.agent.data, null);
  });

  it('refuses a workspace link to another organization record (404) and clears the links to a deleted one', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const workspacePath = `/api/v1/organization/${organization}/workspace/${workspace}`;
    for (const type of ['project', 'ssh', 'agent'] as const) {
      const theirs = await createIn(context.server, foreign, type, type === 'project' ? { name: `p-${randomUUID()}` } : {});
      assertError(
        await context.server.request('PATCH', `${workspacePath}/relationships/${type}`, { body: { data: { type, id: theirs } } }),
        404,
      );
      const ours = await createIn(context.server, organization, type, type === 'project' ? { name: `p-${randomUUID()}` } : {});
      assert.equal(
        (await context.server.request('PATCH', `${workspacePath}/relationships/${type}`, { body: { data: { type, id: ours } } })).status,
        204,
      );
      assert.equal((await context.server.delete(path(type, ours))).status, 204);
      assert.equal((await context.server.get(workspacePath)).body.data.relationships[type].data, null, type);
    }
  });

  it('refuses a moduleSshKey or defaultTemplate of another organization (422 at the attribute, a value; the ssh link, a relationship, is 404), and keeps what clients send', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const workspacePath = `/api/v1/organization/${organization}/workspace/${workspace}`;
    const update = (attributes: Record<string, unknown>) =>
      context.server.request('PATCH', workspacePath, { body: { data: { type: 'workspace', id: workspace, attributes } } });
    const attributesNow = async () => (await context.server.get(workspacePath)).body.data.attributes;
    const theirs = {
      moduleSshKey: await createIn(context.server, foreign, 'ssh'),
      defaultTemplate: await createTemplate(context.server, foreign),
    };
    const ours = {
      moduleSshKey: await createIn(context.server, organization, 'ssh'),
      defaultTemplate: await createTemplate(context.server, organization),
    };

    assertError(
      await context.server.request('PATCH', `${workspacePath}/relationships/ssh`, {
        body: { data: { type: 'ssh', id: theirs.moduleSshKey } },
      }),
      404,
    );
    for (const [name, id] of Object.entries(theirs)) {
      for (const refused of [id, randomUUID(), 'not-an-id'])
        assertError(await update({ [name]: refused }), 422, `/data/attributes/${name}`);
      const created = await context.server.post(
        `/api/v1/organization/${organization}/workspace`,
        resourceDocument('workspace', { name: `ws-${randomUUID()}`, [name]: id }),
      );
      assertError(created, 422, `/data/attributes/${name}`);
      const [error] = await errors(
        context.server,
        `mutation { workspace(op: UPDATE, data: {id: ${literal(workspace)}, ${name}: ${literal(id)}}) { edges { node { id } } } }`,
      );
      assert.deepEqual({ status: error?.extensions.status, field: error?.extensions.field }, { status: 422, field: name });
    }
    assert.deepEqual([(await attributesNow()).moduleSshKey, (await attributesNow()).defaultTemplate], [null, null]);

    // What Terrakube clients send: an id of the organization's own, "" for none, or null.
    assert.equal((await update(ours)).status, 204);
    assert.deepEqual(
      [(await attributesNow()).moduleSshKey, (await attributesNow()).defaultTemplate],
      [ours.moduleSshKey, ours.defaultTemplate],
    );
    // The settings page sends back what it read, after the key it names was deleted.
    assert.equal((await context.server.delete(path('ssh', ours.moduleSshKey))).status, 204);
    assert.equal((await update({ moduleSshKey: ours.moduleSshKey, description: 'saved as read' })).status, 204);
    for (const none of ['', null]) {
      assert.equal((await update({ moduleSshKey: none, defaultTemplate: none })).status, 204);
      assert.deepEqual([(await attributesNow()).moduleSshKey, (await attributesNow()).defaultTemplate], [none, none]);
    }
  });

  it('answers 404 for another organization records, and to a non-member for the lists', async () => {
    const outsider = await context.server.token({ groups: [`outsider-${randomUUID()}`] });
    for (const type of Object.keys(records) as RecordType[]) {
      const theirs = await createIn(
        context.server,
        foreign,
        type,
        type === 'project' || type === 'tag' ? { name: `x-${randomUUID()}` } : {},
      );
      assertError(await context.server.get(path(type, theirs)), 404);
      assertError(await context.server.patch(path(type, theirs), resourceDocument(type, {}, { id: theirs })), 404);
      assertError(await context.server.delete(path(type, theirs)), 404);
      assertError(await context.server.get(path(type, undefined, foreign), { token: outsider }), 404);
      assert.equal((await context.server.get(path(type, theirs, foreign))).status, 200);
    }
  });

  it('needs the capability Terrakube uses: manageWorkspace for projects and workspace tags, manageVcs for SSH keys, administrators for the rest', async () => {
    const group = `ops-${randomUUID()}`;
    await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: group, manageWorkspace: true });
    const member = await context.server.token({ groups: [group] });
    const as = { token: member };
    assert.equal((await context.server.post(path('project'), resourceDocument('project', { name: `p-${randomUUID()}` }), as)).status, 201);
    const workspace = await createWorkspace(context.server, organization);
    const tag = await createIn(context.server, organization, 'tag', { name: `t-${randomUUID()}` });
    assert.equal((await context.server.post(tagsOf(workspace), workspaceTagDocument(tag), as)).status, 201);
    for (const type of ['tag', 'globalvar', 'agent', 'ssh'] as const) {
      const attributes = type === 'tag' ? { name: `t-${randomUUID()}` } : records[type].create;
      assertError(await context.server.post(path(type), resourceDocument(type, attributes), as), 403);
    }
    const vcsGroup = `vcs-${randomUUID()}`;
    await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: vcsGroup, manageVcs: true });
    const vcsMember = await context.server.token({ groups: [vcsGroup] });
    assert.equal((await context.server.post(path('ssh'), resourceDocument('ssh', records.ssh.create), { token: vcsMember })).status, 201);
  });

  it('deletes an organization with all its new records and the tags of its workspaces, leaving no row', async () => {
    const doomed = await createOrganization(context.server);
    const workspace = await createWorkspace(context.server, doomed);
    const tag = await createIn(context.server, doomed, 'tag', { name: 'gone' });
    await createRecord(context.server, tagsOf(workspace, doomed), 'workspacetag', { tagId: tag });
    for (const type of ['project', 'globalvar', 'ssh', 'agent'] as const) await createIn(context.server, doomed, type);
    assert.equal((await context.server.delete(`/api/v1/organization/${doomed}`)).status, 204);
    for (const table of ['project', 'tag', 'globalvar', 'ssh', 'agent'])
      assert.equal(await context.server.countRows(table, 'organization_id', doomed), 0, table);
    assert.equal(await context.server.countRows('workspace_tag', 'workspace_id', workspace), 0);
  });
});

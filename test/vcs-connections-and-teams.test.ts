import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import {
  assertError,
  createCollection,
  createOrganization,
  createRecord,
  createTemplate,
  createVcs,
  createWorkspace,
  describeEachStore,
  resourceDocument,
} from './harness.ts';

describeEachStore('VCS connections, workspace links and teams', (context) => {
  let organization: string;
  const connections = () => `/api/v1/organization/${organization}/vcs`;
  const workspaces = () => `/api/v1/organization/${organization}/workspace`;
  const teams = () => `/api/v1/organization/${organization}/team`;
  const link = (workspace: string, vcs: string | null) =>
    context.server.request('PATCH', `${workspaces()}/${workspace}/relationships/vcs`, {
      body: { data: vcs === null ? null : { type: 'vcs', id: vcs } },
    });

  before(async () => {
    organization = await createOrganization(context.server);
  });

  it('creates a VCS connection as the Terraform provider sends it, echoing status and never reading back a credential', async () => {
    const secrets = { clientSecret: `cs-${randomUUID()}`, privateKey: `pk-${randomUUID()}`, accessToken: `at-${randomUUID()}` };
    const sent = {
      name: 'github',
      description: 'GitHub app',
      vcsType: 'GITHUB',
      connectionType: 'STANDALONE',
      clientId: 'client',
      endpoint: 'https://github.com',
      apiUrl: 'https://api.github.com',
      callback: null,
      redirectUrl: null,
      status: 'COMPLETED',
      ...secrets,
    };
    const created = await context.server.post(connections(), resourceDocument('vcs', sent));
    assert.equal(created.status, 201, created.text);
    const { id, attributes, relationships } = created.body.data;
    for (const [name, value] of Object.entries(sent)) assert.deepEqual(attributes[name], name in secrets ? null : value, name);
    assert.deepEqual(relationships, { organization: { data: { type: 'organization', id: organization } } });
    const workspace = await createWorkspace(context.server, organization);
    assert.equal((await link(workspace, id)).status, 204);
    for (const path of [
      `${connections()}/${id}`,
      connections(),
      `${connections()}/${id}?include=workspace`,
      `/api/v1/organization/${organization}?include=vcs`,
      `${workspaces()}/${workspace}?include=vcs`,
      `/api/v1/workspace/${workspace}/vcs`,
      `/api/v1/workspace/${workspace}/vcs/${id}`,
      `${workspaces()}/${workspace}/vcs/${id}`,
    ]) {
      const response = await context.server.get(path);
      assert.equal(response.status, 200, `${path}: ${response.text}`);
      for (const secret of Object.values(secrets)) assert.ok(!response.text.includes(secret), `${path} shows a credential`);
    }
    const [row] = await context.server.query('select client_secret, private_key, access_token from vcs where id = $1', [id]);
    for (const value of Object.values(row ?? {})) assert.match(String(value), /^s1:/);
    assert.equal((await context.server.get(`${connections()}?filter[vcs]=accessToken==${secrets.accessToken}`)).status, 400);
  });

  it('checks VCS values: name and vcsType required, enumerations 422, names may repeat', async () => {
    assertError(await context.server.post(connections(), resourceDocument('vcs', { name: 'x' })), 422, '/data/attributes/vcsType');
    assertError(await context.server.post(connections(), resourceDocument('vcs', { vcsType: 'GITHUB' })), 422, '/data/attributes/name');
    const bad = assertError(
      await context.server.post(connections(), resourceDocument('vcs', { name: 'x', vcsType: 'SVN' })),
      422,
      '/data/attributes/vcsType',
    );
    assert.match(bad[0]?.detail ?? '', /AZURE_DEVOPS/);
    assertError(
      await context.server.post(connections(), resourceDocument('vcs', { name: 'x', vcsType: 'GITHUB', connectionType: 'PAT' })),
      422,
      '/data/attributes/connectionType',
    );
    assertError(
      await context.server.post(connections(), resourceDocument('vcs', { name: 'x', vcsType: 'GITHUB', status: 'DONE' })),
      422,
      '/data/attributes/status',
    );
    const name = `same-${randomUUID()}`;
    await createVcs(context.server, organization, { name });
    await createVcs(context.server, organization, { name });
  });

  it('updates a VCS connection, keeping credentials not sent and replacing those sent', async () => {
    const id = await createVcs(context.server, organization, { accessToken: 'first' });
    assert.equal(
      (await context.server.patch(`${connections()}/${id}`, resourceDocument('vcs', { description: 'renamed', status: 'ERROR' }, { id })))
        .status,
      204,
    );
    const [kept] = await context.server.query('select access_token from vcs where id = $1', [id]);
    assert.equal(
      (await context.server.patch(`${connections()}/${id}`, resourceDocument('vcs', { accessToken: 'second' }, { id }))).status,
      204,
    );
    const [replaced] = await context.server.query('select access_token from vcs where id = $1', [id]);
    assert.notEqual(replaced?.access_token, kept?.access_token);
    const read = (await context.server.get(`${connections()}/${id}`)).body.data.attributes;
    assert.deepEqual([read.description, read.status, read.accessToken], ['renamed', 'ERROR', null]);
  });

  it('links a workspace to a VCS connection in the create body and through the relationship endpoint', async () => {
    const vcs = await createVcs(context.server, organization);
    const created = await context.server.post(
      workspaces(),
      resourceDocument('workspace', { name: `ws-${randomUUID()}` }, { relationships: { vcs: { data: { type: 'vcs', id: vcs } } } }),
    );
    assert.equal(created.status, 201, created.text);
    const workspace = created.body.data.id as string;
    assert.deepEqual(created.body.data.relationships.vcs, { data: { type: 'vcs', id: vcs } });
    const relationship = await context.server.get(`${workspaces()}/${workspace}/relationships/vcs`);
    assert.deepEqual(relationship.body, { data: { type: 'vcs', id: vcs } });
    const listed = await context.server.get(`${connections()}/${vcs}/relationships/workspace`);
    assert.deepEqual(listed.body.data, [{ type: 'workspace', id: workspace }]);
    const related = await context.server.get(`/api/v1/workspace/${workspace}/vcs`);
    assert.equal(related.body.data.id, vcs);

    assert.equal((await link(workspace, null)).status, 204);
    assert.deepEqual((await context.server.get(`${workspaces()}/${workspace}/relationships/vcs`)).body, { data: null });
    assert.deepEqual((await context.server.get(`/api/v1/workspace/${workspace}/vcs`)).body.data, null);
    assert.equal((await context.server.get(`${workspaces()}/${workspace}`)).body.data.attributes.updatedBy, 'admin@example.com');
  });

  it('answers relationship endpoints with clear errors: wrong type 409, foreign or missing record 404, parent or to-many 403, bad body 400', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const collection = await createCollection(context.server, organization);
    assertError(
      await context.server.request('PATCH', `${workspaces()}/${workspace}/relationships/vcs`, {
        body: { data: { type: 'collection', id: collection } },
      }),
      409,
      '/data/type',
    );
    const foreign = await createVcs(context.server, await createOrganization(context.server));
    assertError(await link(workspace, foreign), 404, '/data');
    assertError(await link(workspace, randomUUID()), 404, '/data');
    // Naming the parent a record has changes nothing (a client may send it back); naming another is a move, refused.
    const ownParent = await context.server.request('PATCH', `${workspaces()}/${workspace}/relationships/organization`, {
      body: { data: { type: 'organization', id: organization } },
    });
    assert.equal(ownParent.status, 204, ownParent.text);
    const otherOrganization = await createOrganization(context.server);
    assertError(
      await context.server.request('PATCH', `${workspaces()}/${workspace}/relationships/organization`, {
        body: { data: { type: 'organization', id: otherOrganization } },
      }),
      403,
    );
    assertError(await context.server.request('PATCH', `${workspaces()}/${workspace}/relationships/variable`, { body: { data: [] } }), 403);
    assertError(await context.server.request('PATCH', `${workspaces()}/${workspace}/relationships/vcs`, { body: { data: 'vcs' } }), 400);
    assertError(await context.server.request('PATCH', `${workspaces()}/${workspace}/relationships/vcs`, { body: {} }), 400);
    assertError(await context.server.get(`${workspaces()}/${workspace}/relationships/nonsense`), 404);
    // A workspace's runs and state versions are made by the server: they change through their records.
    for (const name of ['job', 'history'])
      assertError(await context.server.request('PATCH', `${workspaces()}/${workspace}/relationships/${name}`, { body: { data: [] } }), 403);
    // A relationship name Terrakube clients send that another record does not model: null is accepted, a link is not.
    const vcsPath = `/api/v1/organization/${organization}/vcs/${await createVcs(context.server, organization)}`;
    assert.equal((await context.server.request('PATCH', `${vcsPath}/relationships/webhook`, { body: { data: null } })).status, 204);
    assertError(
      await context.server.request('PATCH', `${vcsPath}/relationships/webhook`, { body: { data: { type: 'webhook', id: randomUUID() } } }),
      422,
    );
    // A workspace's webhook is modeled (a to-many of at most one): it changes through its record.
    assertError(await context.server.request('PATCH', `${workspaces()}/${workspace}/relationships/webhook`, { body: { data: [] } }), 403);
  });

  it('refuses POST and DELETE on a relationship with 403, the answer PATCH gives a to-many one, and changes nothing', async () => {
    const vcs = await createVcs(context.server, organization);
    const workspace = await createWorkspace(context.server, organization);
    assert.equal((await link(workspace, vcs)).status, 204);
    const variable = await createRecord(context.server, `/api/v1/workspace/${workspace}/variable`, 'variable', {
      key: 'KEPT',
      category: 'ENV',
    });
    const members = { data: [{ type: 'variable', id: variable }] };
    const variables = `${workspaces()}/${workspace}/relationships/variable`;
    const [replaced] = assertError(await context.server.request('PATCH', variables, { body: members }), 403);
    for (const method of ['POST', 'DELETE']) {
      const [refused] = assertError(await context.server.request(method, variables, { body: members }), 403);
      assert.deepEqual(refused, replaced, method);
      // The same through the to-many relationship that lists the workspaces linking a VCS connection.
      const linking = `${connections()}/${vcs}/relationships/workspace`;
      assertError(await context.server.request(method, linking, { body: { data: [{ type: 'workspace', id: workspace }] } }), 403);
      // A to-one relationship is replaced with PATCH; adding to it or removing from it is refused alike.
      const [toOne] = assertError(
        await context.server.request(method, `${workspaces()}/${workspace}/relationships/vcs`, {
          body: { data: [{ type: 'vcs', id: vcs }] },
        }),
        403,
      );
      assert.match(toOne?.detail ?? '', /PATCH/);
      // The record and the relationship are found first, as for PATCH.
      assertError(await context.server.request(method, `${workspaces()}/${randomUUID()}/relationships/variable`, { body: members }), 404);
      assertError(await context.server.request(method, `${workspaces()}/${workspace}/relationships/nonsense`, { body: members }), 404);
    }
    assert.equal((await context.server.get(`/api/v1/workspace/${workspace}/variable/${variable}`)).status, 200);
    assert.deepEqual((await context.server.get(`${workspaces()}/${workspace}/relationships/vcs`)).body.data, { type: 'vcs', id: vcs });
  });

  it('reads, updates and deletes the linked VCS record through the workspace, and 404s when the workspace does not link it', async () => {
    const vcs = await createVcs(context.server, organization);
    const other = await createVcs(context.server, organization);
    const workspace = await createWorkspace(context.server, organization);
    assert.equal((await link(workspace, vcs)).status, 204);
    for (const base of [`/api/v1/workspace/${workspace}/vcs`, `${workspaces()}/${workspace}/vcs`]) {
      assert.equal((await context.server.get(`${base}/${vcs}`)).body.data.id, vcs);
      assertError(await context.server.get(`${base}/${other}`), 404);
      assertError(await context.server.patch(`${base}/${other}`, resourceDocument('vcs', { description: 'x' }, { id: other })), 404);
      assertError(await context.server.delete(`${base}/${other}`), 404);
    }
    const patched = await context.server.patch(
      `/api/v1/workspace/${workspace}/vcs/${vcs}`,
      resourceDocument('vcs', { description: 'through the workspace' }, { id: vcs }),
    );
    assert.equal(patched.status, 204, patched.text);
    assert.equal((await context.server.get(`${connections()}/${vcs}`)).body.data.attributes.description, 'through the workspace');
    assert.equal((await context.server.delete(`/api/v1/workspace/${workspace}/vcs/${vcs}`)).status, 204);
    assertError(await context.server.get(`${connections()}/${vcs}`), 404);
    assert.deepEqual((await context.server.get(`${workspaces()}/${workspace}`)).body.data.relationships.vcs, { data: null });
    assert.equal((await context.server.get(`${connections()}/${other}`)).status, 200);
  });

  it('deletes a VCS connection linked to live and soft-deleted workspaces: 204, every link cleared, the workspaces kept', async () => {
    const vcs = await createVcs(context.server, organization);
    const live = await createWorkspace(context.server, organization, {});
    const hidden = await createWorkspace(context.server, organization);
    for (const workspace of [live, hidden]) assert.equal((await link(workspace, vcs)).status, 204);
    assert.equal(
      (await context.server.patch(`${workspaces()}/${hidden}`, resourceDocument('workspace', { deleted: true }, { id: hidden }))).status,
      204,
    );
    assert.equal((await context.server.delete(`${connections()}/${vcs}`)).status, 204);
    assert.equal(await context.server.countRows('vcs', 'id', vcs), 0);
    assert.equal(await context.server.countRows('workspace', 'vcs_id', vcs), 0);
    assert.equal(await context.server.countRows('workspace', 'id', hidden), 1);
    assert.deepEqual((await context.server.get(`${workspaces()}/${live}`)).body.data.relationships.vcs, { data: null });
  });

  it('answers 404 for another organization VCS connection in every path', async () => {
    const other = await createOrganization(context.server);
    const foreign = await createVcs(context.server, other);
    const detail = assertError(await context.server.get(`${connections()}/${foreign}`), 404)[0]?.detail;
    assert.equal(detail, `Unknown identifier ${foreign} for vcs`);
    assertError(await context.server.patch(`${connections()}/${foreign}`, resourceDocument('vcs', { name: 'mine' }, { id: foreign })), 404);
    assertError(await context.server.delete(`${connections()}/${foreign}`), 404);
    assertError(await context.server.get(`${connections()}/${foreign}/relationships/workspace`), 404);
    assert.equal((await context.server.get(`/api/v1/organization/${other}/vcs/${foreign}`)).status, 200);
  });

  it('serves teams with full CRUD, the documented defaults and flags, and a unique name per organization', async () => {
    const name = `platform-${randomUUID()}`;
    const created = await context.server.post(teams(), resourceDocument('team', { name, manageWorkspace: true, manageVcs: true }));
    assert.equal(created.status, 201, created.text);
    const { id, attributes, relationships } = created.body.data;
    assert.deepEqual(
      { ...attributes, createdDate: undefined, updatedDate: undefined },
      {
        name,
        role: null,
        manageState: false,
        manageWorkspace: true,
        manageModule: false,
        manageProvider: false,
        manageVcs: true,
        manageTemplate: false,
        manageJob: false,
        manageCollection: false,
        planJob: false,
        approveJob: false,
        // Stratum's own flag: whether its members read the organization's audit trail.
        readAuditTrail: false,
        createdBy: 'admin@example.com',
        createdDate: undefined,
        updatedBy: 'admin@example.com',
        updatedDate: undefined,
      },
    );
    assert.deepEqual(relationships, { organization: { data: { type: 'organization', id: organization } } });
    assertError(await context.server.post(teams(), resourceDocument('team', { name })), 409, '/data/attributes/name');
    await createRecord(context.server, `/api/v1/organization/${await createOrganization(context.server)}/team`, 'team', { name });
    assertError(await context.server.post(teams(), resourceDocument('team', { name: 'x', role: 'owner' })), 422, '/data/attributes/role');
    assertError(
      await context.server.post(teams(), resourceDocument('team', { name: 'x', manageVcs: 'yes' })),
      422,
      '/data/attributes/manageVcs',
    );
    assertError(await context.server.post(teams(), resourceDocument('team', {})), 422, '/data/attributes/name');

    assert.equal((await context.server.patch(`${teams()}/${id}`, resourceDocument('team', { role: 'write' }, { id }))).status, 204);
    assert.equal((await context.server.get(`${teams()}/${id}`)).body.data.attributes.role, 'write');
    assert.deepEqual(
      (await context.server.get(`${teams()}?filter[team]=name==${name}`)).body.data.map((t: { id: string }) => t.id),
      [id],
    );
    assert.equal((await context.server.delete(`${teams()}/${id}`)).status, 204);
    assertError(await context.server.get(`${teams()}/${id}`), 404);
  });

  it('lets only administrators write teams', async () => {
    const team = await createRecord(context.server, teams(), 'team', { name: `writers-${randomUUID()}`, role: 'admin' });
    const outsider = await context.server.token({ groups: ['someone-else'] });
    assert.equal((await context.server.post(teams(), resourceDocument('team', { name: 'x' }), { token: outsider })).status, 404);
    assert.equal(
      (await context.server.patch(`${teams()}/${team}`, resourceDocument('team', { role: 'read' }, { id: team }), { token: outsider }))
        .status,
      404,
    );
    assert.equal((await context.server.delete(`${teams()}/${team}`, { token: outsider })).status, 404);
    assert.equal((await context.server.get(`${teams()}/${team}`)).body.data.attributes.role, 'admin');
  });

  it('serves the organization relationships, includes what exists and nothing for what is not modeled yet', async () => {
    const owner = await createOrganization(context.server);
    const template = await createTemplate(context.server, owner);
    const workspace = await createWorkspace(context.server, owner);
    const vcs = await createVcs(context.server, owner);
    const collection = await createCollection(context.server, owner);
    const team = await createRecord(context.server, `/api/v1/organization/${owner}/team`, 'team', { name: `t-${randomUUID()}` });
    const response = await context.server.get(
      `/api/v1/organization/${owner}?include=team,vcs,workspace,collection,template,job,module,provider`,
    );
    assert.equal(response.status, 200, response.text);
    const included = new Set((response.body.included as { type: string; id: string }[]).map((r) => `${r.type}:${r.id}`));
    for (const expected of [`template:${template}`, `workspace:${workspace}`, `vcs:${vcs}`, `collection:${collection}`, `team:${team}`]) {
      assert.ok(included.has(expected), expected);
    }
    assert.deepEqual(response.body.data.relationships.team.data, [{ type: 'team', id: team }]);
    assert.deepEqual(response.body.data.relationships.vcs.data, [{ type: 'vcs', id: vcs }]);
    // Without include, to-many relationships carry no linkage, so large organizations stay cheap to list.
    const plain = await context.server.get(`/api/v1/organization/${owner}`);
    const relationships: Record<string, { data?: unknown }> = plain.body.data.relationships ?? {};
    for (const relationship of Object.values(relationships)) assert.equal(relationship.data, undefined);
    for (const name of ['team', 'vcs', 'workspace', 'template', 'collection', 'module', 'provider', 'job']) {
      const related = await context.server.get(`/api/v1/organization/${owner}/relationships/${name}`);
      assert.equal(related.status, 200, `${name}: ${related.text}`);
      assert.ok(Array.isArray(related.body.data), name);
    }
    // A workspace's state versions are no relationship of its organization.
    assert.equal((await context.server.get(`/api/v1/organization/${owner}/relationships/history`)).status, 404);
  });

  it('deletes an organization with its VCS connections and teams, clearing workspace links, and leaves no row', async () => {
    const owner = await createOrganization(context.server);
    const vcs = await createVcs(context.server, owner);
    const workspace = await createWorkspace(context.server, owner);
    assert.equal(
      (
        await context.server.request('PATCH', `/api/v1/organization/${owner}/workspace/${workspace}/relationships/vcs`, {
          body: { data: { type: 'vcs', id: vcs } },
        })
      ).status,
      204,
    );
    await createRecord(context.server, `/api/v1/organization/${owner}/team`, 'team', { name: `t-${randomUUID()}` });
    assert.equal((await context.server.delete(`/api/v1/organization/${owner}`)).status, 204);
    for (const table of ['vcs', 'team', 'workspace'])
      assert.equal(await context.server.countRows(table, 'organization_id', owner), 0, table);
  });
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import {
  assertError,
  createOrganization,
  createRecord,
  createCollection,
  createVcs,
  createWorkspace,
  describeEachStore,
  resourceDocument,
} from './harness.ts';

/** The attributes of a record without its audit stamps, to compare with what was sent. */
function withoutAudit(attributes: Record<string, unknown>): Record<string, unknown> {
  const { createdBy: _createdBy, createdDate: _createdDate, updatedBy: _updatedBy, updatedDate: _updatedDate, ...rest } = attributes;
  return rest;
}

describeEachStore('workspaces and variables', (context) => {
  let organization: string;
  const workspaces = () => `/api/v1/organization/${organization}/workspace`;
  const variables = (workspace: string) => `/api/v1/workspace/${workspace}/variable`;
  const nestedVariables = (workspace: string) => `${workspaces()}/${workspace}/variable`;

  before(async () => {
    organization = await createOrganization(context.server, { executionMode: 'local' });
  });

  it('creates a workspace with the documented defaults, its mode taken from the organization', async () => {
    const name = `ws-${randomUUID()}`;
    const created = await context.server.post(workspaces(), resourceDocument('workspace', { name }));
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('location'), `${workspaces()}/${created.body.data.id}`);
    assert.deepEqual(withoutAudit(created.body.data.attributes), {
      name,
      description: null,
      source: null,
      branch: 'main',
      folder: '/',
      defaultTemplate: null,
      iacType: 'terraform',
      terraformVersion: null,
      executionMode: 'local',
      allowRemoteApply: false,
      globalRemoteState: true,
      sharedIds: null,
      moduleSshKey: null,
      locked: false,
      lockDescription: null,
      deleted: false,
      lastJobStatus: 'NeverExecuted',
      lastJobDate: null,
    });
    // Existing clients read relationships.vcs.data without a guard: it must be there, null, as every to-one link.
    assert.deepEqual(created.body.data.relationships, {
      organization: { data: { type: 'organization', id: organization } },
      vcs: { data: null },
      ssh: { data: null },
      project: { data: null },
      agent: { data: null },
    });
  });

  it('echoes a CLI-driven workspace exactly as the Terraform provider sends it', async () => {
    const sent = {
      name: `cli-${randomUUID()}`,
      description: null,
      source: 'empty',
      branch: 'remote-content',
      folder: '',
      defaultTemplate: '',
      iacType: 'tofu',
      terraformVersion: '1.8.0',
      executionMode: 'remote',
      deleted: false,
      allowRemoteApply: false,
      // Read-only values clients echo back are ignored, not errors.
      lastJobStatus: 'completed',
    };
    const created = await context.server.post(workspaces(), resourceDocument('workspace', sent));
    assert.equal(created.status, 201, created.text);
    const attributes = created.body.data.attributes;
    for (const [name, value] of Object.entries(sent)) if (name !== 'lastJobStatus') assert.deepEqual(attributes[name], value, name);
    assert.equal(attributes.lastJobStatus, 'NeverExecuted');
    const read = await context.server.get(`/api/v1/workspace/${created.body.data.id}`);
    assert.deepEqual(read.body.data, created.body.data);
  });

  it('checks workspace values: unique name (409), enumerations (422), unknown attributes (400)', async () => {
    const name = `dup-${randomUUID()}`;
    await createWorkspace(context.server, organization, { name });
    assertError(await context.server.post(workspaces(), resourceDocument('workspace', { name })), 409, '/data/attributes/name');
    assertError(
      await context.server.post(workspaces(), resourceDocument('workspace', { name: 'x', iacType: 'pulumi' })),
      422,
      '/data/attributes/iacType',
    );
    assertError(
      await context.server.post(workspaces(), resourceDocument('workspace', { name: 'x', executionMode: 'agent' })),
      422,
      '/data/attributes/executionMode',
    );
    assertError(await context.server.post(workspaces(), resourceDocument('workspace', {})), 422, '/data/attributes/name');
    assertError(
      await context.server.post(workspaces(), resourceDocument('workspace', { name: 'x', autoApply: true })),
      400,
      '/data/attributes/autoApply',
    );
  });

  it('reads, updates and deletes a workspace at its root path too', async () => {
    const id = await createWorkspace(context.server, organization);
    const other = await context.server.token({ groups: ['STRATUM_ADMIN'], email: 'other@example.com' });
    const patched = await context.server.patch(
      `/api/v1/workspace/${id}`,
      resourceDocument('workspace', { locked: true, lockDescription: 'release' }, { id }),
      { token: other },
    );
    assert.equal(patched.status, 204, patched.text);
    const read = (await context.server.get(`${workspaces()}/${id}`)).body.data.attributes;
    assert.deepEqual(
      [read.locked, read.lockDescription, read.createdBy, read.updatedBy],
      [true, 'release', 'admin@example.com', 'other@example.com'],
    );
    assert.equal((await context.server.delete(`/api/v1/workspace/${id}`)).status, 204);
    assert.equal((await context.server.get(`${workspaces()}/${id}`)).status, 404);
  });

  it('soft-deletes a workspace with deleted: "true" as the web UI sends it: 204, then 404 everywhere, and the name is free', async () => {
    const name = `soft-${randomUUID()}`;
    const id = await createWorkspace(context.server, organization, { name });
    const variable = await createRecord(context.server, variables(id), 'variable', { key: 'k', value: 'v', category: 'TERRAFORM' });
    const deleted = await context.server.patch(
      `${workspaces()}/${id}`,
      resourceDocument('workspace', { name: `${name.slice(0, 21)}_DEL_abcd`, deleted: 'true' }),
    );
    assert.equal(deleted.status, 204, deleted.text);
    for (const path of [
      `${workspaces()}/${id}`,
      `/api/v1/workspace/${id}`,
      variables(id),
      `${variables(id)}/${variable}`,
      `${nestedVariables(id)}/${variable}`,
    ]) {
      assertError(await context.server.get(path), 404);
    }
    const list = await context.server.get(`${workspaces()}?filter[workspace]=id==${id}`);
    assert.equal(list.body.data.length, 0);
    await createWorkspace(context.server, organization, { name });
  });

  it('includes what the web UI asks for and ignores the relationships not modeled yet', async () => {
    const vcs = await createVcs(context.server, organization);
    const id = await createWorkspace(context.server, organization, {});
    const linked = await context.server.request('PATCH', `${workspaces()}/${id}/relationships/vcs`, {
      body: { data: { type: 'vcs', id: vcs } },
    });
    assert.equal(linked.status, 204);
    const variable = await createRecord(context.server, variables(id), 'variable', { key: 'k', value: 'v', category: 'TERRAFORM' });
    const collection = await createCollection(context.server, organization);
    const reference = await createRecord(
      context.server,
      `/api/v1/organization/${organization}/collection/${collection}/reference`,
      'reference',
      {},
      {
        relationships: { workspace: { data: { type: 'workspace', id } } },
      },
    );
    const response = await context.server.get(
      `${workspaces()}/${id}?include=job,variable,history,schedule,vcs,agent,organization,webhook,reference,project`,
    );
    assert.equal(response.status, 200, response.text);
    const included = (response.body.included as { type: string; id: string }[]).map((r) => `${r.type}:${r.id}`).sort();
    assert.deepEqual(included, [`organization:${organization}`, `reference:${reference}`, `variable:${variable}`, `vcs:${vcs}`].sort());
    assert.deepEqual(response.body.data.relationships.variable.data, [{ type: 'variable', id: variable }]);
    assert.equal((await context.server.get(`${workspaces()}/${id}?include=nonsense`)).status, 400);
  });

  it('serves variables at both paths: create 201, read 200 with included, list, update 204, delete 204', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const created = await context.server.post(
      nestedVariables(workspace),
      resourceDocument('variable', { key: 'region', value: 'eu', description: '', category: 'TERRAFORM', sensitive: false, hcl: false }),
    );
    assert.equal(created.status, 201, created.text);
    const { id, attributes, relationships } = created.body.data;
    assert.deepEqual(withoutAudit(attributes), {
      key: 'region',
      value: 'eu',
      description: '',
      category: 'TERRAFORM',
      sensitive: false,
      hcl: false,
      incomplete: false,
    });
    assert.deepEqual(relationships, { workspace: { data: { type: 'workspace', id: workspace } } });
    const read = await context.server.get(`${variables(workspace)}/${id}?include=workspace`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.data, created.body.data);
    assert.deepEqual(
      read.body.included.map((r: { type: string; id: string }) => [r.type, r.id]),
      [['workspace', workspace]],
    );
    assert.deepEqual(
      (await context.server.get(variables(workspace))).body.data.map((v: { id: string }) => v.id),
      [id],
    );
    assert.equal(
      (await context.server.patch(`${variables(workspace)}/${id}`, resourceDocument('variable', { value: 'us', hcl: true }, { id })))
        .status,
      204,
    );
    const after = (await context.server.get(`${nestedVariables(workspace)}/${id}`)).body.data.attributes;
    assert.deepEqual([after.value, after.hcl, after.category], ['us', true, 'TERRAFORM']);
    assert.equal((await context.server.delete(`${nestedVariables(workspace)}/${id}`)).status, 204);
    assert.equal((await context.server.get(`${variables(workspace)}/${id}`)).status, 404);
  });

  it('checks variables: unique key per workspace (409), category (422), ENV key names (422)', async () => {
    const workspace = await createWorkspace(context.server, organization);
    await createRecord(context.server, variables(workspace), 'variable', { key: 'TF_LOG', value: 'DEBUG', category: 'ENV' });
    assertError(
      await context.server.post(variables(workspace), resourceDocument('variable', { key: 'TF_LOG', value: 'x', category: 'ENV' })),
      409,
      '/data/attributes/key',
    );
    await createRecord(context.server, variables(await createWorkspace(context.server, organization)), 'variable', {
      key: 'TF_LOG',
      value: 'x',
      category: 'ENV',
    });
    assertError(
      await context.server.post(variables(workspace), resourceDocument('variable', { key: 'k', category: 'terraform' })),
      422,
      '/data/attributes/category',
    );
    assertError(
      await context.server.post(variables(workspace), resourceDocument('variable', { key: 'k' })),
      422,
      '/data/attributes/category',
    );
    assertError(
      await context.server.post(variables(workspace), resourceDocument('variable', { key: 'has-dash', category: 'ENV' })),
      422,
      '/data/attributes/key',
    );
    assert.equal((await context.server.get(variables(workspace))).body.data.length, 1);
  });

  it('marks a variable incomplete exactly while it is sensitive and empty', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const incomplete = (
      await context.server.post(
        variables(workspace),
        resourceDocument('variable', { key: 'A', value: '', category: 'ENV', sensitive: true }),
      )
    ).body.data;
    assert.equal(incomplete.attributes.incomplete, true);
    assert.equal(
      (
        await context.server.patch(
          `${variables(workspace)}/${incomplete.id}`,
          resourceDocument('variable', { value: 'filled' }, { id: incomplete.id }),
        )
      ).status,
      204,
    );
    assert.equal((await context.server.get(`${variables(workspace)}/${incomplete.id}`)).body.data.attributes.incomplete, false);
    const complete = (
      await context.server.post(
        variables(workspace),
        resourceDocument('variable', { key: 'B', value: 'x', category: 'ENV', sensitive: true }),
      )
    ).body.data;
    assert.equal(complete.attributes.incomplete, false);
    const plainEmpty = await createRecord(context.server, variables(workspace), 'variable', { key: 'C', value: '', category: 'ENV' });
    assert.equal((await context.server.get(`${variables(workspace)}/${plainEmpty}`)).body.data.attributes.incomplete, false);
    assert.equal(
      (
        await context.server.patch(
          `${variables(workspace)}/${plainEmpty}`,
          resourceDocument('variable', { sensitive: true }, { id: plainEmpty }),
        )
      ).status,
      204,
    );
    assert.equal((await context.server.get(`${variables(workspace)}/${plainEmpty}`)).body.data.attributes.incomplete, true);
  });

  it('never reads back a sensitive variable value, keeps it sensitive, and refuses filters and sorts on values', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const secret = `secret-${randomUUID()}`;
    const created = await context.server.post(
      variables(workspace),
      resourceDocument('variable', { key: 'TOKEN', value: secret, category: 'ENV', sensitive: true }),
    );
    assert.equal(created.body.data.attributes.value, null);
    const id = created.body.data.id as string;
    await createRecord(context.server, variables(workspace), 'variable', { key: 'PLAIN', value: 'visible', category: 'ENV' });
    for (const path of [
      `${variables(workspace)}/${id}`,
      `${nestedVariables(workspace)}/${id}`,
      variables(workspace),
      nestedVariables(workspace),
      `${workspaces()}/${workspace}?include=variable`,
      `${workspaces()}?include=variable`,
    ]) {
      const response = await context.server.get(path);
      assert.equal(response.status, 200, path);
      assert.ok(!response.text.includes(secret), `${path} shows the secret`);
    }
    assertError(
      await context.server.patch(`${variables(workspace)}/${id}`, resourceDocument('variable', { sensitive: false }, { id })),
      422,
      '/data/attributes/sensitive',
    );
    assert.equal((await context.server.get(`${variables(workspace)}/${id}`)).body.data.attributes.sensitive, true);
    assert.equal((await context.server.get(`${variables(workspace)}?filter[variable]=value==${secret}`)).status, 400);
    assert.equal((await context.server.get(`${variables(workspace)}?sort=-value`)).status, 400);
    const [row] = await context.server.query('select value from variable where id = $1', [id]);
    assert.match(String(row?.value), /^s1:/);
    assert.ok(!String(row?.value).includes(secret));
  });

  it('answers 404 for another workspace variable and another organization workspace, and 404 for a foreign VCS link', async () => {
    const mine = await createWorkspace(context.server, organization);
    const sibling = await createWorkspace(context.server, organization);
    const variable = await createRecord(context.server, variables(sibling), 'variable', {
      key: 'k',
      value: 'theirs',
      category: 'TERRAFORM',
    });
    const misplaced = await context.server.get(`${variables(mine)}/${variable}`);
    assert.equal(assertError(misplaced, 404)[0]?.detail, `Unknown identifier ${variable} for variable`);
    assertError(
      await context.server.patch(`${variables(mine)}/${variable}`, resourceDocument('variable', { value: 'mine' }, { id: variable })),
      404,
    );
    assertError(await context.server.delete(`${nestedVariables(mine)}/${variable}`), 404);
    assert.equal((await context.server.get(`${variables(sibling)}/${variable}`)).body.data.attributes.value, 'theirs');

    const other = await createOrganization(context.server);
    const foreign = await createWorkspace(context.server, other);
    assert.equal(
      assertError(await context.server.get(`${workspaces()}/${foreign}`), 404)[0]?.detail,
      `Unknown identifier ${foreign} for workspace`,
    );
    assertError(await context.server.get(`${workspaces()}/${foreign}/variable`), 404);
    assertError(await context.server.get(`${workspaces()}/not-a-uuid`), 404);
    const foreignVcs = await createVcs(context.server, other);
    assertError(
      await context.server.post(workspaces(), {
        data: { type: 'workspace', attributes: { name: 'x' }, relationships: { vcs: { data: { type: 'vcs', id: foreignVcs } } } },
      }),
      404,
      '/data/relationships/vcs/data',
    );
  });

  it('deletes a workspace with its variables and references, and an organization with its workspaces, leaving no row', async () => {
    const owner = await createOrganization(context.server);
    const workspace = await createWorkspace(context.server, owner);
    await createRecord(context.server, variables(workspace), 'variable', { key: 'k', value: 'v', category: 'TERRAFORM' });
    const collection = await createCollection(context.server, owner);
    await createRecord(
      context.server,
      `/api/v1/organization/${owner}/collection/${collection}/reference`,
      'reference',
      {},
      { relationships: { workspace: { data: { type: 'workspace', id: workspace } } } },
    );
    assert.equal((await context.server.delete(`/api/v1/organization/${owner}/workspace/${workspace}`)).status, 204);
    assert.equal(await context.server.countRows('variable', 'workspace_id', workspace), 0);
    assert.equal(await context.server.countRows('reference', 'workspace_id', workspace), 0);
    const second = await createWorkspace(context.server, owner);
    await createRecord(context.server, variables(second), 'variable', { key: 'k', value: 'v', category: 'TERRAFORM' });
    assert.equal((await context.server.delete(`/api/v1/organization/${owner}`)).status, 204);
    assert.equal(await context.server.countRows('workspace', 'organization_id', owner), 0);
    assert.equal(await context.server.countRows('variable', 'workspace_id', second), 0);
  });
});

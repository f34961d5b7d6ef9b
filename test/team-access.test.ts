import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { data, errors, literal, nodes } from './graphql-helpers.ts';
import {
  assertError,
  createOrganization,
  createRecord,
  createTemplate,
  createWorkspace,
  describeEachStore,
  resourceDocument,
  type RequestOptions,
} from './harness.ts';

/** The media type Terrakube's web UI sends and asks for with atomic operations. */
const atomic = 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"';

/** The attributes of a record without its audit stamps. */
function withoutAudit(attributes: Record<string, unknown>): Record<string, unknown> {
  const { createdBy: _createdBy, createdDate: _createdDate, updatedBy: _updatedBy, updatedDate: _updatedDate, ...rest } = attributes;
  return rest;
}

const noFlags = { manageState: false, manageWorkspace: false, manageJob: false, planJob: false, approveJob: false };

/** The UI's workspace Team Access list, as it queries it (workspaceAccessService.ts). */
const workspaceAccessQuery = (workspace: string) =>
  `{ workspace(ids: [${literal(workspace)}]) { edges { node { access { edges { node { id name role manageWorkspace manageState planJob approveJob } } } } } } }`;
/** The UI's project Teams list (projectService.ts). */
const projectAccessQuery = (project: string) =>
  `{ project(ids: [${literal(project)}]) { edges { node { projectAccess { edges { node { id name role manageWorkspace manageState manageJob planJob approveJob } } } } } } }`;

describeEachStore('team access per workspace and per project', (context) => {
  let organization: string;
  let foreign: string;
  let foreignWorkspace: string;
  const org = (rest = '') => `/api/v1/organization/${organization}${rest}`;
  const workspacePath = (workspace: string, rest = '') => org(`/workspace/${workspace}${rest}`);
  const accessOf = (workspace: string, id?: string) => workspacePath(workspace, `/access${id === undefined ? '' : `/${id}`}`);
  const projectAccessOf = (project: string, id?: string) => org(`/project/${project}/projectAccess${id === undefined ? '' : `/${id}`}`);
  const grantOn = (workspace: string, attributes: Record<string, unknown>) =>
    createRecord(context.server, accessOf(workspace), 'access', attributes);
  const grantOnProject = (project: string, attributes: Record<string, unknown>) =>
    createRecord(context.server, projectAccessOf(project), 'project_access', attributes);
  const createProject = () => createRecord(context.server, org('/project'), 'project', { name: `p-${randomUUID()}` });
  const linkProject = (workspace: string, project: string | null, options: RequestOptions = {}) =>
    context.server.patch(
      workspacePath(workspace, '/relationships/project'),
      { data: project === null ? null : { type: 'project', id: project } },
      options,
    );
  const variableOn = (workspace: string, key = `V_${randomUUID().slice(0, 8)}`) =>
    createRecord(context.server, workspacePath(workspace, '/variable'), 'variable', {
      key,
      value: 'secret',
      category: 'ENV',
      sensitive: true,
    });
  const listIds = async (path: string, token: string) => {
    const response = await context.server.get(path, { token });
    assert.equal(response.status, 200, `${path}: ${response.text}`);
    return (response.body.data as { id: string }[]).map((record) => record.id);
  };
  /** A caller whose only group is `group`: no team of any organization names it. */
  const outsider = (group: string) => context.server.token({ groups: [group] });

  before(async () => {
    organization = await createOrganization(context.server);
    foreign = await createOrganization(context.server);
    foreignWorkspace = await createWorkspace(context.server, foreign);
  });

  describe('the records', () => {
    it('grants a team access to a workspace as the web UI does: create, list, read, change and remove', async () => {
      const workspace = await createWorkspace(context.server, organization);
      const sent = { name: 'deployers', role: 'custom', manageWorkspace: 'true', manageState: true, planJob: true, approveJob: false };
      const created = await context.server.post(accessOf(workspace), resourceDocument('access', sent));
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.type, 'access');
      const id = String(created.body.data.id);
      const stored = { ...noFlags, name: 'deployers', role: 'custom', manageWorkspace: true, manageState: true, planJob: true };
      assert.deepEqual(withoutAudit(created.body.data.attributes), stored);
      assert.deepEqual(created.body.data.relationships.workspace.data, { type: 'workspace', id: workspace });
      // Also from the root workspace path, as the other children of a workspace.
      assert.deepEqual(await listIds(`/api/v1/workspace/${workspace}/access`, context.server.adminToken), [id]);
      assert.deepEqual(withoutAudit((await context.server.get(accessOf(workspace, id))).body.data.attributes), stored);
      assert.equal(
        (await context.server.patch(accessOf(workspace, id), { data: { type: 'access', id, attributes: { role: 'read' } } })).status,
        204,
      );
      assert.equal((await context.server.get(`/api/v1/workspace/${workspace}/access/${id}`)).body.data.attributes.role, 'read');
      // The web UI's Team Access list reads the grants through GraphQL.
      assert.deepEqual(nodes((await data(context.server, workspaceAccessQuery(workspace))).workspace.edges[0].node.access), [
        { id, name: 'deployers', role: 'read', manageWorkspace: true, manageState: true, planJob: true, approveJob: false },
      ]);
      assert.equal((await context.server.delete(accessOf(workspace, id))).status, 204);
      assertError(await context.server.get(accessOf(workspace, id)), 404);
      assert.deepEqual(nodes((await data(context.server, workspaceAccessQuery(workspace))).workspace.edges[0].node.access), []);
    });

    it('grants a team access to a project as the web UI does ({name, role}), with the flags of a workspace grant', async () => {
      const project = await createProject();
      const created = await context.server.post(projectAccessOf(project), {
        data: { type: 'project_access', attributes: { name: 'platform', role: 'write' } },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.type, 'project_access');
      const id = String(created.body.data.id);
      assert.deepEqual(withoutAudit(created.body.data.attributes), { ...noFlags, name: 'platform', role: 'write' });
      assert.deepEqual(await listIds(projectAccessOf(project), context.server.adminToken), [id]);
      const patched = await context.server.patch(projectAccessOf(project, id), {
        data: { type: 'project_access', id, attributes: { role: 'plan' } },
      });
      assert.equal(patched.status, 204, patched.text);
      assert.deepEqual(nodes((await data(context.server, projectAccessQuery(project))).project.edges[0].node.projectAccess), [
        {
          id,
          name: 'platform',
          role: 'plan',
          manageWorkspace: false,
          manageState: false,
          manageJob: false,
          planJob: false,
          approveJob: false,
        },
      ]);
      assert.equal((await context.server.delete(projectAccessOf(project, id))).status, 204);
      assertError(await context.server.get(projectAccessOf(project, id)), 404);
    });

    it('answers bad grants as any record: unknown attribute 400, wrong type 409, bad role or no name 422, a second grant for a group 409', async () => {
      const workspace = await createWorkspace(context.server, organization);
      const project = await createProject();
      assertError(await context.server.post(accessOf(workspace), resourceDocument('access', { name: 'a', manageTemplate: true })), 400);
      assertError(await context.server.post(projectAccessOf(project), resourceDocument('access', { name: 'a' })), 409);
      assertError(
        await context.server.post(accessOf(workspace), resourceDocument('access', { name: 'a', role: 'owner' })),
        422,
        '/data/attributes/role',
      );
      assertError(
        await context.server.post(projectAccessOf(project), resourceDocument('project_access', { role: 'read' })),
        422,
        '/data/attributes/name',
      );
      await grantOn(workspace, { name: 'twice' });
      assertError(
        await context.server.post(accessOf(workspace), resourceDocument('access', { name: 'twice' })),
        409,
        '/data/attributes/name',
      );
      // The same group on another workspace is another grant.
      await grantOn(await createWorkspace(context.server, organization), { name: 'twice' });
    });

    it("answers 404 for a grant under another organization's workspace or project, and for a grant through the wrong path", async () => {
      const workspace = await createWorkspace(context.server, organization);
      const grant = await grantOn(workspace, { name: 'somebody' });
      const foreignProject = await createRecord(context.server, `/api/v1/organization/${foreign}/project`, 'project', { name: 'theirs' });
      assertError(await context.server.post(accessOf(foreignWorkspace), resourceDocument('access', { name: 'x' })), 404);
      assertError(await context.server.post(projectAccessOf(foreignProject), resourceDocument('project_access', { name: 'x' })), 404);
      assertError(await context.server.get(`/api/v1/organization/${foreign}/workspace/${workspace}/access/${grant}`), 404);
      assertError(await context.server.get(accessOf(await createWorkspace(context.server, organization), grant)), 404);
    });

    it('goes with its workspace or project', async () => {
      const workspace = await createWorkspace(context.server, organization);
      const project = await createProject();
      await grantOn(workspace, { name: 'gone' });
      await grantOnProject(project, { name: 'gone' });
      assert.equal((await context.server.delete(workspacePath(workspace))).status, 204);
      assert.equal((await context.server.delete(org(`/project/${project}`))).status, 204);
      assert.equal(await context.server.countRows('access', 'workspace_id', workspace), 0);
      assert.equal(await context.server.countRows('project_access', 'project_id', project), 0);
    });
  });

  describe('a grant on one workspace', () => {
    const group = `ws-writers-${randomUUID()}`;
    let token = '';
    let granted = '';
    let other = '';
    let grantedVariable = '';
    let otherVariable = '';
    let template = '';

    before(async () => {
      granted = await createWorkspace(context.server, organization);
      other = await createWorkspace(context.server, organization);
      grantedVariable = await variableOn(granted);
      otherVariable = await variableOn(other);
      template = await createTemplate(context.server, organization);
      await grantOn(granted, { name: group, role: 'write' });
      token = await outsider(group);
    });

    it('reads that workspace and what is in it, secrets still null', async () => {
      assert.equal((await context.server.get(workspacePath(granted), { token })).status, 200);
      assert.equal((await context.server.get(`/api/v1/workspace/${granted}`, { token })).status, 200);
      const variable = await context.server.get(workspacePath(granted, `/variable/${grantedVariable}`), { token });
      assert.equal(variable.status, 200, variable.text);
      assert.equal(variable.body.data.attributes.value, null);
      assert.deepEqual(await listIds(workspacePath(granted, '/variable'), token), [grantedVariable]);
      assert.equal((await listIds(workspacePath(granted, '/access'), token)).length, 1);
    });

    it('reads the organization record and its templates, and of what else is in it only the granted workspace', async () => {
      assert.equal((await context.server.get(org(), { token })).status, 200);
      assert.deepEqual(await listIds('/api/v1/organization', token), [organization]);
      assert.deepEqual(await listIds(org('/workspace'), token), [granted]);
      const included = await context.server.get(org('?include=workspace,template,team'), { token });
      const includedRecords = (included.body.included as { type: string; id: string }[]).map((record) => `${record.type} ${record.id}`);
      assert.deepEqual(
        includedRecords.filter((record) => !record.startsWith('template ')),
        [`workspace ${granted}`],
      );
      // Templates, as Terrakube's "team view template": Run now picks one.
      assert.ok(includedRecords.includes(`template ${template}`));
      assert.ok((await listIds(org('/template'), token)).includes(template));
      for (const type of ['team', 'project', 'collection', 'vcs']) assert.deepEqual(await listIds(org(`/${type}`), token), [], type);
      // The organization found readable opens none of its other relationships to the grant.
      const linkage = await context.server.get(org('/relationships/team'), { token });
      assert.deepEqual(linkage.body.data, [], linkage.text);
      assert.deepEqual(
        (await context.server.get(org('/relationships/workspace'), { token })).body.data.map((l: { id: string }) => l.id),
        [granted],
      );
      assert.equal((await context.server.get(org(`/template/${template}`), { token })).status, 200);
    });

    it('gets 404 for every other workspace of the organization and for everything of other organizations', async () => {
      for (const path of [
        workspacePath(other),
        `/api/v1/workspace/${other}`,
        workspacePath(other, '/variable'),
        workspacePath(other, `/variable/${otherVariable}`),
        workspacePath(other, '/access'),
        `/api/v1/organization/${foreign}`,
        `/api/v1/organization/${foreign}/workspace/${foreignWorkspace}`,
        `/api/v1/workspace/${foreignWorkspace}`,
        // The granted workspace under another organization's path.
        `/api/v1/organization/${foreign}/workspace/${granted}`,
      ])
        assertError(await context.server.get(path, { token }), 404);
      assertError(await context.server.patch(workspacePath(other), resourceDocument('workspace', { description: 'x' }), { token }), 404);
      assertError(
        await context.server.post(workspacePath(other, '/variable'), resourceDocument('variable', { key: 'K', category: 'ENV' }), {
          token,
        }),
        404,
      );
      assertError(await context.server.delete(workspacePath(other, `/variable/${otherVariable}`), { token }), 404);
      assert.equal((await context.server.get(workspacePath(other))).body.data.attributes.description, null);
    });

    it('writes the workspace and its variables as its role allows', async () => {
      const renamed = await context.server.patch(
        workspacePath(granted),
        { data: { type: 'workspace', id: granted, attributes: { description: 'by the grant' } } },
        { token },
      );
      assert.equal(renamed.status, 204, renamed.text);
      const created = await context.server.post(
        workspacePath(granted, '/variable'),
        resourceDocument('variable', { key: 'REGION', value: 'eu', category: 'ENV' }),
        { token },
      );
      assert.equal(created.status, 201, created.text);
      const id = String(created.body.data.id);
      assert.equal(
        (
          await context.server.patch(
            `/api/v1/workspace/${granted}/variable/${id}`,
            { data: { type: 'variable', id, attributes: { value: 'us' } } },
            { token },
          )
        ).status,
        204,
      );
      assert.equal((await context.server.delete(workspacePath(granted, `/variable/${id}`), { token })).status, 204);
      assert.equal((await context.server.get(workspacePath(granted))).body.data.attributes.description, 'by the grant');
    });

    it('does not delete the workspace, create workspaces, grant others or write the organization (403), and changes nothing', async () => {
      assertError(await context.server.delete(workspacePath(granted), { token }), 403);
      assertError(
        await context.server.patch(
          workspacePath(granted),
          { data: { type: 'workspace', id: granted, attributes: { deleted: true } } },
          { token },
        ),
        403,
      );
      assertError(
        await context.server.post(org('/workspace'), resourceDocument('workspace', { name: `w-${randomUUID()}` }), { token }),
        403,
      );
      assertError(
        await context.server.post(accessOf(granted), resourceDocument('access', { name: 'friends', role: 'admin' }), { token }),
        403,
      );
      assertError(await context.server.post(org('/template'), resourceDocument('template', { name: 't', tcl: 'e30=' }), { token }), 403);
      assertError(
        await context.server.patch(
          org(),
          { data: { type: 'organization', id: organization, attributes: { description: 'x' } } },
          { token },
        ),
        403,
      );
      assert.equal((await context.server.get(workspacePath(granted))).status, 200);
      assert.equal((await listIds(accessOf(granted), context.server.adminToken)).length, 1);
    });

    it('reports its flags at the workspace permission endpoint, merged with none from teams, and nothing elsewhere', async () => {
      const flags = await context.server.get(`/access-token/v1/teams/permissions/organization/${organization}/workspace/${granted}`, {
        token,
      });
      assert.equal(flags.status, 200, flags.text);
      assert.deepEqual(flags.body, {
        manageState: true,
        manageWorkspace: true,
        manageModule: false,
        manageProvider: false,
        manageVcs: false,
        manageTemplate: false,
        manageJob: true,
        planJob: true,
        approveJob: true,
        manageCollection: false,
        managePermission: false,
      });
      const inOrganization = await context.server.get(`/access-token/v1/teams/permissions/organization/${organization}`, { token });
      assert.ok(
        Object.values(inOrganization.body).every((flag) => flag === false),
        inOrganization.text,
      );
      assertError(
        await context.server.get(`/access-token/v1/teams/permissions/organization/${organization}/workspace/${other}`, { token }),
        404,
      );
      assertError(await context.server.get(`/access-token/v1/teams/permissions/organization/${foreign}`, { token }), 404);
    });

    it('enforces the same through GraphQL', async () => {
      const read = await data(
        context.server,
        `{ organization { edges { node { id workspace { edges { node { id } } } team { edges { node { id } } } } } } }`,
        { token },
      );
      assert.deepEqual(nodes(read.organization), [
        { id: organization, workspace: { edges: [{ node: { id: granted } }] }, team: { edges: [] } },
      ]);
      assert.deepEqual(nodes((await data(context.server, `{ workspace { edges { node { id } } } }`, { token })).workspace), [
        { id: granted },
      ]);
      assert.deepEqual(
        nodes((await data(context.server, `{ workspace(ids: [${literal(other)}]) { edges { node { id } } } }`, { token })).workspace),
        [],
      );
      const update = (workspace: string) =>
        `mutation { workspace(op: UPDATE, data: { id: ${literal(workspace)}, description: "graphql" }) { edges { node { id description } } } }`;
      assert.deepEqual(nodes((await data(context.server, update(granted), { token })).workspace), [
        { id: granted, description: 'graphql' },
      ]);
      const [refused] = await errors(context.server, update(other), { token });
      assert.equal(refused?.extensions.status, 404);
      const [forbidden] = await errors(
        context.server,
        `mutation { workspace(op: DELETE, ids: [${literal(granted)}]) { edges { node { id } } } }`,
        { token },
      );
      assert.equal(forbidden?.extensions.status, 403);
    });

    it('enforces the same through atomic operations', async () => {
      const post = (operations: unknown[]) =>
        context.server.request('POST', '/api/v1/operations', {
          token,
          body: { 'atomic:operations': operations },
          headers: { 'content-type': atomic, accept: atomic },
        });
      const update = (workspace: string) => ({
        op: 'update',
        href: `/organization/${organization}/workspace/${workspace}`,
        data: { type: 'workspace', id: workspace, attributes: { description: 'atomic' } },
      });
      const addVariable = {
        op: 'add',
        href: `/workspace/${granted}/variable`,
        data: { type: 'variable', attributes: { key: 'ATOMIC', category: 'ENV' } },
      };
      const allowed = await post([update(granted), addVariable]);
      assert.equal(allowed.status, 200, allowed.text);
      assertError(await post([update(granted), update(other)]), 404);
      assertError(await post([{ op: 'remove', href: `/organization/${organization}/workspace/${granted}` }]), 403);
      assert.equal((await context.server.get(workspacePath(other))).body.data.attributes.description, null);
    });

    it('gives a read grant reading alone, and a plan grant its planJob flag', async () => {
      const readers = `ws-readers-${randomUUID()}`;
      const planners = `ws-planners-${randomUUID()}`;
      await grantOn(other, { name: readers, role: 'read' });
      await grantOn(other, { name: planners, role: 'plan' });
      const reader = await outsider(readers);
      assert.equal((await context.server.get(workspacePath(other), { token: reader })).status, 200);
      assertError(
        await context.server.patch(workspacePath(other), resourceDocument('workspace', { description: 'x' }), { token: reader }),
        403,
      );
      assertError(
        await context.server.post(workspacePath(other, '/variable'), resourceDocument('variable', { key: 'K', category: 'ENV' }), {
          token: reader,
        }),
        403,
      );
      const flags = await context.server.get(`/access-token/v1/teams/permissions/organization/${organization}/workspace/${other}`, {
        token: await outsider(planners),
      });
      assert.equal(flags.body.planJob, true);
      assert.equal(flags.body.manageJob, true);
      assert.equal(flags.body.manageWorkspace, false);
    });

    it('stops counting once the grant is removed', async () => {
      const temporary = `ws-temporary-${randomUUID()}`;
      const grant = await grantOn(other, { name: temporary, role: 'write' });
      const caller = await outsider(temporary);
      assert.equal((await context.server.get(workspacePath(other), { token: caller })).status, 200);
      assert.equal((await context.server.delete(accessOf(other, grant))).status, 204);
      assertError(await context.server.get(workspacePath(other), { token: caller }), 404);
      assertError(await context.server.get(org(), { token: caller }), 404);
    });
  });

  describe('a grant on a project', () => {
    const group = `project-writers-${randomUUID()}`;
    let token = '';
    let project = '';
    let inside = '';
    let outside = '';

    before(async () => {
      project = await createProject();
      inside = await createWorkspace(context.server, organization);
      outside = await createWorkspace(context.server, organization);
      assert.equal((await linkProject(inside, project)).status, 204);
      await grantOnProject(project, { name: group, role: 'write' });
      token = await outsider(group);
    });

    it("covers exactly the project's workspaces, and the project record", async () => {
      assert.deepEqual(await listIds(org('/workspace'), token), [inside]);
      const renamed = await context.server.patch(
        workspacePath(inside),
        { data: { type: 'workspace', id: inside, attributes: { description: 'project' } } },
        { token },
      );
      assert.equal(renamed.status, 204, renamed.text);
      assert.equal(
        (
          await context.server.post(workspacePath(inside, '/variable'), resourceDocument('variable', { key: 'P', category: 'ENV' }), {
            token,
          })
        ).status,
        201,
      );
      assertError(await context.server.get(workspacePath(outside), { token }), 404);
      assert.equal((await context.server.get(org(`/project/${project}`), { token })).status, 200);
      assert.equal((await listIds(projectAccessOf(project), token)).length, 1);
      assertError(
        await context.server.patch(org(`/project/${project}`), resourceDocument('project', { description: 'x' }), { token }),
        403,
      );
      assertError(
        await context.server.post(projectAccessOf(project), resourceDocument('project_access', { name: 'more' }), { token }),
        403,
      );
      const flags = await context.server.get(`/access-token/v1/teams/permissions/organization/${organization}/workspace/${inside}`, {
        token,
      });
      assert.equal(flags.body.manageWorkspace, true, flags.text);
      assert.equal(flags.body.manageTemplate, false);
    });

    it('follows the workspaces: one moved out of the project is out of reach, one moved in or created in it is in reach', async () => {
      const moving = await createWorkspace(context.server, organization);
      assertError(await context.server.get(workspacePath(moving), { token }), 404);
      assert.equal((await linkProject(moving, project)).status, 204);
      assert.equal((await context.server.get(workspacePath(moving), { token })).status, 200);
      assert.equal((await linkProject(moving, null)).status, 204);
      assertError(await context.server.get(workspacePath(moving), { token }), 404);
      const created = await createRecord(
        context.server,
        org('/workspace'),
        'workspace',
        { name: `in-${randomUUID()}` },
        {
          relationships: { project: { data: { type: 'project', id: project } } },
        },
      );
      assert.equal((await context.server.get(workspacePath(created), { token })).status, 200);
    });

    it('never lets the grant move a workspace into or out of a project (403), which would change who the grants reach', async () => {
      const elsewhere = await createProject();
      await grantOnProject(elsewhere, { name: group, role: 'write' });
      assertError(await linkProject(inside, null, { token }), 403);
      assertError(await linkProject(inside, elsewhere, { token }), 403);
      const relinked = await context.server.patch(
        workspacePath(inside),
        { data: { type: 'workspace', id: inside, relationships: { project: { data: null } } } },
        { token },
      );
      assertError(relinked, 403);
      assert.deepEqual((await context.server.get(workspacePath(inside, '/relationships/project'))).body.data, {
        type: 'project',
        id: project,
      });
      // Sending the link it has changes nothing and is no move.
      const unchanged = await context.server.patch(
        workspacePath(inside),
        {
          data: {
            type: 'workspace',
            id: inside,
            attributes: { description: 'kept' },
            relationships: { project: { data: { type: 'project', id: project } } },
          },
        },
        { token },
      );
      assert.equal(unchanged.status, 204, unchanged.text);
    });
  });

  describe('a team of the organization with a grant besides', () => {
    it('reads the organization as a member and writes only where the grant lets it', async () => {
      const group = `members-${randomUUID()}`;
      await createRecord(context.server, org('/team'), 'team', { name: group, role: 'read' });
      const granted = await createWorkspace(context.server, organization);
      const other = await createWorkspace(context.server, organization);
      await grantOn(granted, { name: group, role: 'write' });
      const token = await context.server.token({ groups: [group] });
      assert.equal((await context.server.get(workspacePath(other), { token })).status, 200);
      assertError(await context.server.patch(workspacePath(other), resourceDocument('workspace', { description: 'x' }), { token }), 403);
      assert.equal(
        (
          await context.server.patch(
            workspacePath(granted),
            { data: { type: 'workspace', id: granted, attributes: { description: 'y' } } },
            { token },
          )
        ).status,
        204,
      );
      assert.ok((await listIds(org('/workspace'), token)).includes(other));
    });

    it('grants through teams of the organization that manage workspaces: they create, change and remove grants', async () => {
      const group = `managers-${randomUUID()}`;
      await createRecord(context.server, org('/team'), 'team', { name: group, manageWorkspace: true });
      const token = await context.server.token({ groups: [group] });
      const workspace = await createWorkspace(context.server, organization);
      const created = await context.server.post(accessOf(workspace), resourceDocument('access', { name: 'contractors', role: 'plan' }), {
        token,
      });
      assert.equal(created.status, 201, created.text);
      const project = await createProject();
      assert.equal(
        (
          await context.server.post(projectAccessOf(project), resourceDocument('project_access', { name: 'contractors', role: 'read' }), {
            token,
          })
        ).status,
        201,
      );
      const reader = `readers-${randomUUID()}`;
      await createRecord(context.server, org('/team'), 'team', { name: reader, role: 'read' });
      assertError(
        await context.server.post(accessOf(workspace), resourceDocument('access', { name: 'x' }), {
          token: await context.server.token({ groups: [reader] }),
        }),
        403,
      );
    });
  });

  it('opens nothing through a grant on a soft-deleted workspace or in a disabled organization', async () => {
    const group = `deleted-${randomUUID()}`;
    const token = await outsider(group);
    const workspace = await createWorkspace(context.server, organization);
    await grantOn(workspace, { name: group, role: 'admin' });
    assert.equal((await context.server.get(org(), { token })).status, 200);
    assert.equal(
      (await context.server.patch(workspacePath(workspace), { data: { type: 'workspace', id: workspace, attributes: { deleted: true } } }))
        .status,
      204,
    );
    assertError(await context.server.get(org(), { token }), 404);
    const disabled = await createOrganization(context.server);
    const inDisabled = await createWorkspace(context.server, disabled);
    await createRecord(context.server, `/api/v1/organization/${disabled}/workspace/${inDisabled}/access`, 'access', { name: group });
    assert.equal((await context.server.get(`/api/v1/workspace/${inDisabled}`, { token })).status, 200);
    assert.equal(
      (
        await context.server.patch(`/api/v1/organization/${disabled}`, {
          data: { type: 'organization', id: disabled, attributes: { disabled: true } },
        })
      ).status,
      204,
    );
    assertError(await context.server.get(`/api/v1/workspace/${inDisabled}`, { token }), 404);
  });
});

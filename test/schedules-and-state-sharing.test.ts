import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import { data, literal, nodes } from './graphql-helpers.ts';
import { assertError, createOrganization, createRecord, createTemplate, createWorkspace, describeEachStore } from './harness.ts';

/** What the web UI's workspace page asks for, on every visit. */
const uiInclude = 'include=job,variable,history,schedule,vcs,agent,organization,webhook,reference,project';
const atomic = 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"';

describeEachStore('schedules and state sharing', (context) => {
  let organization: string;
  let workspace: string;
  let template: string;
  let schedules: string;

  before(async () => {
    organization = await createOrganization(context.server);
    workspace = await createWorkspace(context.server, organization);
    template = await createTemplate(context.server, organization);
    schedules = `/api/v1/organization/${organization}/workspace/${workspace}/schedule`;
  });

  /** A team of the organization with these flags, and a token of its group. */
  async function memberToken(flags: Record<string, unknown>): Promise<string> {
    const group = `team-${randomUUID()}`;
    await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: group, ...flags });
    return context.server.token({ groups: [group] });
  }

  it('adds, edits and deletes a schedule as the Schedules tab does, and lists it through the workspace', async () => {
    // The tab turns its editor's "* * * * *" into Quartz syntax before sending it.
    const created = await context.server.post(schedules, {
      data: { type: 'schedule', attributes: { templateReference: template, cron: '0 * * ? * * *' } },
    });
    assert.equal(created.status, 201, created.text);
    const { id, attributes, relationships } = created.body.data;
    assert.deepEqual(
      { ...attributes, createdBy: undefined, createdDate: undefined, updatedBy: undefined, updatedDate: undefined },
      {
        cron: '0 * * ? * * *',
        templateReference: template,
        tcl: null,
        description: null,
        enabled: true,
        // Stored, never fired: Stratum has no runs yet.
        firing: false,
        createdBy: undefined,
        createdDate: undefined,
        updatedBy: undefined,
        updatedDate: undefined,
      },
    );
    assert.deepEqual(relationships.workspace.data, { type: 'workspace', id: workspace });

    const page = await context.server.get(`/api/v1/organization/${organization}/workspace/${workspace}?${uiInclude}`);
    assert.equal(page.status, 200, page.text);
    assert.deepEqual(page.body.data.relationships.schedule.data, [{ type: 'schedule', id }]);
    assert.deepEqual(
      page.body.included.filter((record: { type: string }) => record.type === 'schedule').map((record: { id: string }) => record.id),
      [id],
    );

    const edited = await context.server.request('PATCH', `${schedules}/${id}`, {
      body: { data: { type: 'schedule', id, attributes: { templateReference: template, cron: '0 0 12 ? * MON-FRI *' } } },
    });
    assert.equal(edited.status, 204, edited.text);
    assert.equal((await context.server.get(`${schedules}/${id}`)).body.data.attributes.cron, '0 0 12 ? * MON-FRI *');

    assert.equal((await context.server.delete(`${schedules}/${id}`)).status, 204);
    const after = await context.server.get(`/api/v1/organization/${organization}/workspace/${workspace}?include=schedule`);
    assert.deepEqual(after.body.data.relationships.schedule.data, []);
  });

  it('refuses a cron Quartz would not read, naming the field and what is wrong', async () => {
    for (const [cron, problem] of [
      ['* * * * *', /5 fields; Quartz takes 6 or 7/],
      ['0 0 25 ? * *', /field 3 \(hours\).*25 is not from 0 to 23/],
      ['0 0 12 * * MON', /must be "\?"/],
    ] as const) {
      const response = await context.server.post(schedules, { data: { type: 'schedule', attributes: { cron } } });
      const [error] = assertError(response, 422, '/data/attributes/cron');
      assert.match(error?.detail ?? '', problem);
    }
    assert.deepEqual((await context.server.get(schedules)).body.data, []);
  });

  it('refuses unknown attributes, wrong types and a template of another organization', async () => {
    assertError(
      await context.server.post(schedules, { data: { type: 'schedule', attributes: { cron: '0 0 12 * * ?', every: 'day' } } }),
      400,
      '/data/attributes/every',
    );
    assertError(
      await context.server.post(schedules, { data: { type: 'schedule', attributes: { cron: 5 } } }),
      422,
      '/data/attributes/cron',
    );
    assertError(
      await context.server.post(schedules, { data: { type: 'schedule', attributes: { cron: '0 0 12 * * ?', enabled: 'often' } } }),
      422,
      '/data/attributes/enabled',
    );
    assertError(await context.server.post(schedules, { data: { type: 'schedule', attributes: {} } }), 422, '/data/attributes/cron');
    const elsewhere = await createTemplate(context.server, await createOrganization(context.server));
    const foreign = await context.server.post(schedules, {
      data: { type: 'schedule', attributes: { cron: '0 0 12 * * ?', templateReference: elsewhere } },
    });
    assertError(foreign, 422, '/data/attributes/templateReference');
    // firing is the server's to say: sent back, it is ignored.
    const echoed = await context.server.post(schedules, { data: { type: 'schedule', attributes: { cron: '0 0 12 * * ?', firing: true } } });
    assert.equal(echoed.status, 201, echoed.text);
    assert.equal(echoed.body.data.attributes.firing, false);
    assert.equal((await context.server.delete(`${schedules}/${String(echoed.body.data.id)}`)).status, 204);
  });

  it('lets members with manageWorkspace change schedules, members without it only read them, and nobody else see them', async () => {
    const writer = await memberToken({ role: 'write' });
    const reader = await memberToken({ role: 'read' });
    const outsider = await context.server.token({ groups: [`outsider-${randomUUID()}`] });
    const body = { data: { type: 'schedule', attributes: { cron: '0 30 6 ? * *', templateReference: template } } };
    const created = await context.server.post(schedules, body, { token: writer });
    assert.equal(created.status, 201, created.text);
    const id = String(created.body.data.id);
    assertError(await context.server.post(schedules, body, { token: reader }), 403);
    assertError(
      await context.server.request('PATCH', `${schedules}/${id}`, {
        token: reader,
        body: { data: { type: 'schedule', id, attributes: { enabled: false } } },
      }),
      403,
    );
    assertError(await context.server.delete(`${schedules}/${id}`, { token: reader }), 403);
    assert.equal((await context.server.get(`${schedules}/${id}`, { token: reader })).status, 200);
    assertError(await context.server.get(`${schedules}/${id}`, { token: outsider }), 404);
    assertError(await context.server.post(schedules, body, { token: outsider }), 404);
    const listed = await context.server.get('/api/v1/organization/' + organization + '/workspace/' + workspace + '/schedule', {
      token: outsider,
    });
    assertError(listed, 404);
    // Still there, as the writer left it.
    assert.equal((await context.server.get(`${schedules}/${id}`)).body.data.attributes.enabled, true);
    assert.equal((await context.server.delete(`${schedules}/${id}`, { token: writer })).status, 204);
  });

  it("reads a workspace's schedules through GraphQL, as Terrakube names them", async () => {
    const id = await createRecord(context.server, schedules, 'schedule', { cron: '0 0 3 ? * SUN', templateReference: template });
    const answer = await data(
      context.server,
      `{ workspace(ids: [${literal(workspace)}]) { edges { node { schedule { edges { node { id cron templateReference enabled firing } } } } } } }`,
    );
    const [found] = nodes(answer.workspace);
    assert.deepEqual(nodes(found?.schedule as never), [
      { id, cron: '0 0 3 ? * SUN', templateReference: template, enabled: true, firing: false },
    ]);
    assert.equal((await context.server.delete(`${schedules}/${id}`)).status, 204);
  });

  it('shares state with chosen workspaces of the same organization, as the State Shared page saves it', async () => {
    const first = await createWorkspace(context.server, organization);
    const second = await createWorkspace(context.server, organization);
    const share = (sharedIds: unknown) =>
      context.server.request('POST', '/api/v1/operations', {
        headers: { 'content-type': atomic, accept: atomic },
        body: {
          'atomic:operations': [
            {
              op: 'update',
              href: `/organization/${organization}/workspace/${workspace}`,
              data: { type: 'workspace', id: workspace, attributes: { sharedIds } },
            },
          ],
        },
      });
    const read = async () =>
      (await context.server.get(`/api/v1/organization/${organization}/workspace/${workspace}`)).body.data.attributes.sharedIds;
    assert.equal(await read(), null);
    const shared = await share(`${first},${second}`);
    assert.equal(shared.status, 200, shared.text);
    assert.equal(await read(), `${first},${second}`);

    // Removing the last one leaves an empty list.
    assert.equal((await share(first)).status, 200);
    assert.equal((await share('')).status, 200);
    assert.equal(await read(), '');

    const elsewhere = await createWorkspace(context.server, await createOrganization(context.server));
    for (const bad of [`${first},${elsewhere}`, `${first},${first}`, `${first},`, 'not-an-id', randomUUID()]) {
      const refused = await share(bad);
      assert.equal(refused.status, 422, `${bad}: ${refused.text}`);
      assert.equal(refused.body.errors[0].source.pointer, '/atomic:operations/0/data/attributes/sharedIds');
    }
    assert.equal((await share(7)).status, 422);
    assert.equal(await read(), '');
  });

  it('keeps a shared workspace deleted since in the list the page sends back, but takes no unknown new one', async () => {
    const kept = await createWorkspace(context.server, organization);
    const gone = await createWorkspace(context.server, organization);
    const path = `/api/v1/organization/${organization}/workspace/${workspace}`;
    const patch = (sharedIds: string) =>
      context.server.request('PATCH', path, { body: { data: { type: 'workspace', id: workspace, attributes: { sharedIds } } } });
    assert.equal((await patch(`${kept},${gone}`)).status, 204);
    assert.equal((await context.server.delete(`/api/v1/organization/${organization}/workspace/${gone}`)).status, 204);
    const added = await createWorkspace(context.server, organization);
    assert.equal((await patch(`${kept},${gone},${added}`)).status, 204);
    assertError(await patch(`${kept},${gone},${added},${randomUUID()}`), 422, '/data/attributes/sharedIds');
    // A member without manageWorkspace cannot change the list.
    const reader = await memberToken({ role: 'read' });
    const refused = await context.server.request('PATCH', path, {
      token: reader,
      body: { data: { type: 'workspace', id: workspace, attributes: { sharedIds: '' } } },
    });
    assertError(refused, 403);
  });
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import { data, graphql, literal, nodes } from './graphql-helpers.ts';
import {
  assertError,
  createOrganization,
  createRecord,
  createTemplate,
  createWorkspace,
  describeEachStore,
  type RequestOptions,
} from './harness.ts';

/** What the web UI's workspace page asks for, on every visit. */
const uiInclude = 'include=job,variable,history,schedule,vcs,agent,organization,webhook,reference,project';
const atomic = 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"';

/** One row of the web UI's webhook table, as its Settings > Webhook page holds it before saving. */
interface EventRow {
  id: string;
  created: boolean;
  event: string;
  branch: string;
  file: string;
  template: string;
  pathType?: string;
  // What was typed in the priority box (text), or the number read back; none leaves the UI's 1.
  priority?: string | number;
  prWorkflowEnabled?: boolean;
  prApplyEnabled?: boolean;
}

/** The atomic document the web UI's "Save webhooks" sends (Webhook.tsx, onFinish), built the same way. */
function uiSave(organization: string, workspace: string, webhookId: string | undefined, rows: EventRow[], newId: string = randomUUID()) {
  const baseRequestURL = `/organization/${organization}/workspace/${workspace}/webhook`;
  const id = webhookId ?? newId;
  return {
    'atomic:operations': [
      {
        op: webhookId === undefined ? 'add' : 'update',
        href: baseRequestURL,
        data: { type: 'webhook', id },
        relationships: { events: { data: rows.map((row) => ({ type: 'webhook_event', id: row.id })) } },
      },
      ...rows.map((row) => ({
        op: row.created ? 'update' : 'add',
        href: row.created ? `${baseRequestURL}/${id}/events/${row.id}` : `${baseRequestURL}/${id}/events`,
        data: {
          type: 'webhook_event',
          id: row.id,
          attributes: {
            priority: row.priority ?? 1,
            event: row.event.toUpperCase(),
            branch: row.branch,
            path: row.file,
            pathType: row.pathType ?? 'PATTERN',
            templateId: row.template,
            prWorkflowEnabled: row.prWorkflowEnabled ?? false,
            prApplyEnabled: row.prApplyEnabled ?? false,
          },
        },
      })),
    ],
  };
}

describeEachStore('workspace webhooks', (context) => {
  let organization: string;
  let template: string;

  const workspacePath = (workspace: string) => `/api/v1/organization/${organization}/workspace/${workspace}`;
  const webhookPath = (workspace: string, id = '') => `${workspacePath(workspace)}/webhook${id === '' ? '' : `/${id}`}`;
  const operations = (body: unknown, options: RequestOptions = {}) =>
    context.server.request('POST', '/api/v1/operations', { ...options, body, headers: { 'content-type': atomic, accept: atomic } });
  const save = (workspace: string, webhookId: string | undefined, rows: EventRow[], options: RequestOptions = {}) =>
    operations(uiSave(organization, workspace, webhookId, rows), options);
  const row = (overrides: Partial<EventRow> = {}): EventRow => ({
    id: randomUUID(),
    created: false,
    event: 'push',
    branch: 'main',
    file: 'terraform/*',
    template,
    ...overrides,
  });
  /** The webhook link of the workspace as the UI's page reads it. */
  const webhookOf = async (workspace: string) => {
    const page = await context.server.get(`${workspacePath(workspace)}?${uiInclude}`);
    assert.equal(page.status, 200, page.text);
    return page.body;
  };
  const noServerErrors = () =>
    assert.deepEqual(
      context.server.logs.filter((line) => /"status":5\d\d/.test(line) || line.includes('"level":50')),
      [],
    );

  before(async () => {
    organization = await createOrganization(context.server);
    template = await createTemplate(context.server, organization);
  });

  it('adds, edits and deletes a webhook with its events exactly as the Settings > Webhook page sends them', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const before = await webhookOf(workspace);
    assert.equal(before.data.relationships.webhook.data, null);

    // Add: the webhook and two events, ids chosen by the page, the priority as typed.
    const webhookId = randomUUID();
    const push = row({ priority: '5', branch: 'main,release-.*' });
    const pull = row({ event: 'pull_request', file: 'modules/.*', pathType: 'REGEX', prWorkflowEnabled: true, prApplyEnabled: true });
    const added = await operations(uiSave(organization, workspace, undefined, [push, pull], webhookId));
    assert.equal(added.status, 200, added.text);
    const results = added.body['atomic:results'] as { data: { type: string; id: string } }[];
    assert.deepEqual(
      results.map((result) => [result.data.type, result.data.id]),
      [
        ['webhook', webhookId],
        ['webhook_event', push.id],
        ['webhook_event', pull.id],
      ],
    );

    // Load, as the page does: the workspace's link, then the webhook and its events.
    const page = await webhookOf(workspace);
    assert.deepEqual(page.data.relationships.webhook.data, { type: 'webhook', id: webhookId });
    assert.equal(page.included.filter((record: { type: string }) => record.type === 'webhook').length, 1);
    const hook = await context.server.get(webhookPath(workspace, webhookId));
    assert.equal(hook.status, 200, hook.text);
    assert.equal(hook.body.data.attributes.remoteHookId, null);
    assert.equal(hook.body.data.attributes.migratedV2, false);
    assert.deepEqual(hook.body.data.relationships.workspace.data, { type: 'workspace', id: workspace });
    const events = await context.server.get(`${webhookPath(workspace, webhookId)}/events`);
    assert.equal(events.status, 200, events.text);
    const byId = new Map(
      (events.body.data as { id: string; attributes: Record<string, unknown> }[]).map((event) => [event.id, event.attributes]),
    );
    assert.deepEqual(
      { ...byId.get(push.id), createdBy: undefined, createdDate: undefined, updatedBy: undefined, updatedDate: undefined },
      {
        event: 'PUSH',
        branch: 'main,release-.*',
        path: 'terraform/*',
        pathType: 'PATTERN',
        templateId: template,
        priority: 5,
        prWorkflowEnabled: false,
        prApplyEnabled: false,
        createdBy: undefined,
        createdDate: undefined,
        updatedBy: undefined,
        updatedDate: undefined,
      },
    );
    assert.equal(byId.get(pull.id)?.event, 'PULL_REQUEST');
    assert.equal(byId.get(pull.id)?.priority, 1);
    assert.equal(byId.get(pull.id)?.prApplyEnabled, true);

    // Edit: the page deletes a removed row at once (without a Content-Type), then saves the rest,
    // the loaded rows as updates (the priority as read back) and a new one as an add.
    const removed = await context.server.delete(`${webhookPath(workspace, webhookId)}/events/${pull.id}`);
    assert.equal(removed.status, 204, removed.text);
    const release = row({ event: 'release', branch: 'v[0-9]+' });
    const edited = await save(workspace, webhookId, [{ ...push, created: true, priority: 7, branch: 'develop' }, release]);
    assert.equal(edited.status, 200, edited.text);
    const after = await context.server.get(`${webhookPath(workspace, webhookId)}/events?sort=priority`);
    assert.deepEqual(
      (after.body.data as { id: string; attributes: { priority: number; branch: string; event: string } }[]).map((event) => [
        event.id,
        event.attributes.event,
        event.attributes.branch,
        event.attributes.priority,
      ]),
      [
        [release.id, 'RELEASE', 'v[0-9]+', 1],
        [push.id, 'PUSH', 'develop', 7],
      ],
    );

    // The page's "Migrate to Shared Webhook" button.
    const migrated = await context.server.patch(webhookPath(workspace, webhookId), {
      data: { type: 'webhook', id: webhookId, attributes: { migratedV2: true } },
    });
    assert.equal(migrated.status, 204, migrated.text);
    assert.equal((await context.server.get(webhookPath(workspace, webhookId))).body.data.attributes.migratedV2, true);

    // Delete: the switch turned off and saved, without a Content-Type.
    const deleted = await context.server.delete(webhookPath(workspace, webhookId));
    assert.equal(deleted.status, 204, deleted.text);
    assert.equal((await webhookOf(workspace)).data.relationships.webhook.data, null);
    assertError(await context.server.get(`${webhookPath(workspace, webhookId)}/events/${push.id}`), 404);
    assert.deepEqual(await context.server.query('select id from webhook_event where id = $1', [push.id]), []);

    // And a new one may be added again.
    assert.equal((await save(workspace, undefined, [row()])).status, 200);
    noServerErrors();
  });

  it("reads a workspace's webhook through its relationship endpoints and GraphQL, as Terrakube names them", async () => {
    const workspace = await createWorkspace(context.server, organization);
    const webhookId = randomUUID();
    const event = row({ event: 'pull_request', priority: '3' });
    assert.equal((await operations(uiSave(organization, workspace, undefined, [event], webhookId))).status, 200);

    const linkage = await context.server.get(`${workspacePath(workspace)}/relationships/webhook`);
    assert.equal(linkage.status, 200, linkage.text);
    assert.deepEqual(linkage.body.data, { type: 'webhook', id: webhookId });
    const empty = await createWorkspace(context.server, organization);
    assert.equal((await context.server.get(`${workspacePath(empty)}/relationships/webhook`)).body.data, null);
    // The related read agrees with the to-one link: the webhook itself, or null; never a list.
    const related = await context.server.get(`${workspacePath(workspace)}/webhook?include=events`);
    assert.equal(related.status, 200, related.text);
    assert.equal(related.body.data.id, webhookId);
    assert.equal(related.body.data.type, 'webhook');
    assert.deepEqual(
      related.body.included.map((record: { type: string }) => record.type),
      ['webhook_event'],
    );
    assert.deepEqual((await context.server.get(`${workspacePath(empty)}/webhook`)).body, { data: null });
    assertError(await context.server.get(`${workspacePath(workspace)}/webhook?page[size]=5`), 400);
    // The link is the webhook's to make: the workspace's side of it is read-only.
    assertError(await context.server.patch(`${workspacePath(workspace)}/relationships/webhook`, { data: null }), 403);
    // A webhook names the workspace it has (a no-op), and never moves to another.
    const parentLink = `${webhookPath(workspace, webhookId)}/relationships/workspace`;
    assert.equal((await context.server.patch(parentLink, { data: { type: 'workspace', id: workspace } })).status, 204);
    assertError(await context.server.patch(parentLink, { data: { type: 'workspace', id: empty } }), 403);
    assertError(await context.server.patch(parentLink, { data: null }), 403);

    const answer = await data(
      context.server,
      `{ workspace(ids: [${literal(workspace)}]) { edges { node { webhook { edges { node { id remoteHookId migratedV2
        events { edges { node { id event branch path pathType templateId priority prWorkflowEnabled prApplyEnabled } } } } } } } } } }`,
    );
    // A GraphQL create must name the webhook as the page does; without an id it is refused, never a server error.
    const unnamed = await graphql(
      context.server,
      `mutation { workspace(ids: [${literal(empty)}]) { edges { node { webhook(op: UPSERT, data: [{migratedV2: false}]) { edges { node { id } } } } } } }`,
    );
    assert.equal(unnamed.body.errors[0]?.extensions?.status, 422, unnamed.text);
    assert.equal(unnamed.body.errors[0]?.extensions?.field, 'id', unnamed.text);
    assert.equal((await context.server.get(`${workspacePath(empty)}/relationships/webhook`)).body.data, null);
    const [found] = nodes(answer.workspace);
    const [hook] = nodes(found?.webhook as never);
    assert.equal(hook?.id, webhookId);
    assert.deepEqual(nodes((hook as { events: never }).events), [
      {
        id: event.id,
        event: 'PULL_REQUEST',
        branch: 'main',
        path: 'terraform/*',
        pathType: 'PATTERN',
        templateId: template,
        priority: 3,
        prWorkflowEnabled: false,
        prApplyEnabled: false,
      },
    ]);
  });

  it('takes relationships beside data only on an add or update of a webhook, and refuses it everywhere else as before', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const webhookId = randomUUID();
    const event = row();
    assert.equal((await operations(uiSave(organization, workspace, undefined, [event], webhookId))).status, 200);
    const beside = { events: { data: [] } };
    const refusedMember = async (operation: Record<string, unknown>) => {
      const [error] = assertError(await operations({ 'atomic:operations': [operation] }), 400, '/atomic:operations/0/relationships');
      assert.equal(error?.detail, 'Unknown operation member relationships.');
    };
    // Other types.
    await refusedMember({
      op: 'add',
      href: `/organization/${organization}/workspace`,
      data: { type: 'workspace', attributes: { name: `w-${randomUUID()}` } },
      relationships: { vcs: { data: null } },
    });
    await refusedMember({
      op: 'update',
      href: `/organization/${organization}/workspace/${workspace}`,
      data: { type: 'workspace', id: workspace, attributes: {} },
      relationships: beside,
    });
    await refusedMember({
      op: 'update',
      href: `/organization/${organization}/workspace/${workspace}/webhook/${webhookId}/events/${event.id}`,
      data: { type: 'webhook_event', id: event.id, attributes: {} },
      relationships: beside,
    });
    // Other operations of a webhook.
    await refusedMember({
      op: 'remove',
      href: `/organization/${organization}/workspace/${workspace}/webhook/${webhookId}`,
      relationships: beside,
    });
    await refusedMember({
      op: 'update',
      ref: { type: 'webhook', id: webhookId, relationship: 'events' },
      data: [],
      relationships: beside,
    });
    // A webhook's other relationships, and malformed linkage.
    const update = (relationships: unknown) => ({
      op: 'update',
      href: `/organization/${organization}/workspace/${workspace}/webhook`,
      data: { type: 'webhook', id: webhookId },
      relationships,
    });
    assertError(
      await operations({ 'atomic:operations': [update({ workspace: { data: null } })] }),
      400,
      '/atomic:operations/0/relationships/workspace',
    );
    assertError(
      await operations({ 'atomic:operations': [update({ events: { data: null } })] }),
      400,
      '/atomic:operations/0/relationships/events/data',
    );
    assertError(await operations({ 'atomic:operations': [update([])] }), 400, '/atomic:operations/0/relationships');
    assertError(
      await operations({ 'atomic:operations': [update({ events: { data: [{ type: 'variable', id: event.id }] } })] }),
      422,
      '/atomic:operations/0/relationships/events/data/0/type',
    );
    // An update at a collection's href is a webhook's form alone.
    const schedule = await createRecord(context.server, `${workspacePath(workspace)}/schedule`, 'schedule', { cron: '0 0 12 * * ?' });
    const atCollection = await operations({
      'atomic:operations': [
        {
          op: 'update',
          href: `/organization/${organization}/workspace/${workspace}/schedule`,
          data: { type: 'schedule', id: schedule, attributes: {} },
        },
      ],
    });
    assertError(atCollection, 404, '/atomic:operations/0/href');
    // A webhook of another workspace is not found at this workspace's collection.
    const other = await createWorkspace(context.server, organization);
    const elsewhere = await operations({
      'atomic:operations': [
        { op: 'update', href: `/organization/${organization}/workspace/${other}/webhook`, data: { type: 'webhook', id: webhookId } },
      ],
    });
    assertError(elsewhere, 404, '/atomic:operations/0');
  });

  it('refuses bad events, bad patterns, foreign templates, taken and malformed ids, and a second webhook, undoing the whole save', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const foreignTemplate = await createTemplate(context.server, await createOrganization(context.server));
    const refused = async (rows: EventRow[], status: number, pointer: string, webhookId?: string) => {
      const response = await operations(uiSave(organization, workspace, undefined, rows, webhookId));
      assertError(response, status, pointer);
      // Nothing of the save stays.
      assert.equal((await webhookOf(workspace)).data.relationships.webhook.data, null);
    };
    await refused([row({ event: 'merge' })], 422, '/atomic:operations/1/data/attributes/event');
    await refused([row({ event: 'unknown' })], 422, '/atomic:operations/1/data/attributes/event');
    await refused([row(), row({ branch: 'feature/(' })], 422, '/atomic:operations/2/data/attributes/branch');
    await refused([row({ file: 'modules/[', pathType: 'REGEX' })], 422, '/atomic:operations/1/data/attributes/path');
    await refused([row({ pathType: 'GLOB' })], 422, '/atomic:operations/1/data/attributes/pathType');
    await refused([row({ template: foreignTemplate })], 422, '/atomic:operations/1/data/attributes/templateId');
    await refused([row({ template: randomUUID() })], 422, '/atomic:operations/1/data/attributes/templateId');
    await refused([row({ priority: 'high' })], 422, '/atomic:operations/1/data/attributes/priority');
    await refused([row({ priority: 5000 })], 422, '/atomic:operations/1/data/attributes/priority');
    await refused([row({ branch: 'x'.repeat(5000) })], 422, '/atomic:operations/1/data/attributes/branch');
    await refused([row({ branch: '' })], 422, '/atomic:operations/1/data/attributes/branch');
    await refused([row({ id: 'event-1' })], 422, '/atomic:operations/1/data/attributes/id');
    await refused([row({ id: randomUUID().toUpperCase() })], 422, '/atomic:operations/1/data/attributes/id');
    await refused([row()], 422, '/atomic:operations/0/data/attributes/id', 'my-webhook');
    const twice = row();
    await refused([twice, { ...twice }], 409, '/atomic:operations/2/data/attributes/id');

    // A pattern path is a wildcard, not a regular expression: what a regex would refuse is stored.
    const webhookId = randomUUID();
    const saved = await operations(uiSave(organization, workspace, undefined, [row({ file: 'modules/[' })], webhookId));
    assert.equal(saved.status, 200, saved.text);
    // A second webhook on the workspace, and an id another record took.
    const second = await operations(uiSave(organization, workspace, undefined, [row()]));
    const [error] = assertError(second, 409, '/atomic:operations/0');
    assert.match(error?.detail ?? '', /already has a webhook/);
    const other = await createWorkspace(context.server, organization);
    assertError(
      await operations(uiSave(organization, other, undefined, [row()], webhookId)),
      409,
      '/atomic:operations/0/data/attributes/id',
    );
    // Turning a stored pattern path into a regex checks it again.
    const [stored] = (await context.server.get(`${webhookPath(workspace, webhookId)}/events`)).body.data as { id: string }[];
    const retyped = await context.server.patch(`${webhookPath(workspace, webhookId)}/events/${stored?.id ?? ''}`, {
      data: { type: 'webhook_event', id: stored?.id, attributes: { pathType: 'REGEX' } },
    });
    assertError(retyped, 422, '/data/attributes/path');
    noServerErrors();
  });

  it('keeps webhooks to their organization, and to those who manage the workspace or hold a grant with manageWorkspace', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const webhookId = randomUUID();
    const event = row();
    assert.equal((await operations(uiSave(organization, workspace, undefined, [event], webhookId))).status, 200);

    const team = async (flags: Record<string, unknown>) => {
      const group = `team-${randomUUID()}`;
      await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: group, ...flags });
      return context.server.token({ groups: [group] });
    };
    const reader = await team({ role: 'read' });
    const writer = await team({ manageWorkspace: true });
    const outsider = await context.server.token({ groups: [`outsider-${randomUUID()}`] });

    // A member without manageWorkspace reads and may not write.
    assert.equal((await context.server.get(webhookPath(workspace, webhookId), { token: reader })).status, 200);
    assertError(
      await save(workspace, webhookId, [{ ...event, created: true, branch: 'dev' }], { token: reader }),
      403,
      '/atomic:operations/0',
    );
    assertError(await context.server.delete(`${webhookPath(workspace, webhookId)}/events/${event.id}`, { token: reader }), 403);
    assertError(await context.server.delete(webhookPath(workspace, webhookId), { token: reader }), 403);
    // A team with manageWorkspace writes.
    assert.equal((await save(workspace, webhookId, [{ ...event, created: true, branch: 'dev' }], { token: writer })).status, 200);

    // Someone of no team of the organization sees nothing of it, nor under another organization's path.
    assertError(await context.server.get(webhookPath(workspace, webhookId), { token: outsider }), 404);
    assertError(await save(workspace, webhookId, [{ ...event, created: true }], { token: outsider }), 404, '/atomic:operations/0');
    const foreign = await createOrganization(context.server);
    assertError(await context.server.get(`/api/v1/organization/${foreign}/workspace/${workspace}/webhook/${webhookId}`), 404);
    const otherWorkspace = await createWorkspace(context.server, organization);
    assertError(await context.server.get(`${webhookPath(otherWorkspace, webhookId)}/events/${event.id}`), 404);

    // A grant on the workspace with manageWorkspace writes its webhook; one without it does not.
    const granted = `granted-${randomUUID()}`;
    await createRecord(context.server, `${workspacePath(workspace)}/access`, 'access', { name: granted, manageWorkspace: true });
    const grantToken = await context.server.token({ groups: [granted] });
    const grantSave = await save(workspace, webhookId, [{ ...event, created: true, branch: 'by-grant' }], { token: grantToken });
    assert.equal(grantSave.status, 200, grantSave.text);
    // The organization's templates are the grant's to see (Terrakube's "team view template"): it picks an event's template.
    assert.equal((await save(workspace, webhookId, [row()], { token: grantToken })).status, 200);
    const looking = `looking-${randomUUID()}`;
    await createRecord(context.server, `${workspacePath(workspace)}/access`, 'access', { name: looking, role: 'read' });
    const lookToken = await context.server.token({ groups: [looking] });
    assert.equal((await context.server.get(webhookPath(workspace, webhookId), { token: lookToken })).status, 200);
    assertError(await context.server.delete(webhookPath(workspace, webhookId), { token: lookToken }), 403);
    assert.equal((await context.server.delete(webhookPath(workspace, webhookId), { token: grantToken })).status, 204);
    // A grant reaches only its workspace.
    const otherHook = await save(otherWorkspace, undefined, [row()], { token: grantToken });
    assertError(otherHook, 404, '/atomic:operations/0');
    noServerErrors();
  });
});

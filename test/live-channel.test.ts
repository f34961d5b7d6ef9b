/**
 * The live channel at /subscriptions, spoken by graphql-ws's own client over a real WebSocket, as
 * Terrakube's web UI speaks it: the bearer token in the connection parameters, then
 * `jobStatusChanged(workspaceId)` and `organizationJobStatusChanged(organizationId)`.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createOrganization, createRecord, createTemplate, createWorkspace, describeEachStore } from './harness.ts';

const workspaceSubscription = `
  subscription OnJobStatusChanged($workspaceId: ID!) {
    jobStatusChanged(workspaceId: $workspaceId) {
      jobId
      workspaceId
      status
    }
  }
`;

/** A client of the channel, with what closed its connection when it was refused. */
function client(url: string, token: string | undefined): { client: Client; closed: Promise<{ code: number; reason: string }> } {
  let closed!: (event: { code: number; reason: string }) => void;
  const closedPromise = new Promise<{ code: number; reason: string }>((resolve) => (closed = resolve));
  const made = createClient({
    url: `${url.replace(/^http/, 'ws')}/subscriptions`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    connectionParams: token === undefined ? {} : { Authorization: `Bearer ${token}` },
    on: { closed: (event) => closed(event as { code: number; reason: string }) },
  });
  return { client: made, closed: closedPromise };
}

/** The first thing a subscription gives: its first event, or the messages of its errors. */
function first(made: Client, query: string, variables: Record<string, string>): Promise<{ data?: unknown; errors?: string[] }> {
  const messages = (errors: readonly { message: string }[]) => errors.map((error) => error.message);
  return new Promise((resolve) => {
    const stop = made.subscribe(
      { query, variables },
      {
        next: (value) => {
          stop();
          resolve(value.errors === undefined ? { data: value.data } : { errors: messages(value.errors) });
        },
        error: (error) => resolve({ errors: Array.isArray(error) ? messages(error as { message: string }[]) : [String(error)] }),
        complete: () => resolve({}),
      },
    );
  });
}

describeEachStore('live channel', (context) => {
  let organization: string;
  let workspace: string;

  before(async () => {
    organization = await createOrganization(context.server);
    workspace = await createWorkspace(context.server, organization);
  });

  it('answers a request that is no WebSocket upgrade with an error document', async () => {
    const plain = await context.server.get('/subscriptions');
    assert.equal(plain.status, 426);
    assert.equal(plain.body.errors[0].code, 'upgrade_required');
  });

  it('closes a connection without a token, or with a token it does not trust, as Forbidden', async () => {
    for (const token of [undefined, 'not-a-token', `${context.server.adminToken}x`]) {
      const { client: made, closed } = client(context.server.url, token);
      void first(made, workspaceSubscription, { workspaceId: workspace });
      const event = await closed;
      assert.equal(event.code, 4403, `${String(token)}: ${event.reason}`);
      await made.dispose();
    }
  });

  it("sends a job's status changes to the subscribers of its workspace and of its organization, and nothing of other workspaces", async () => {
    const template = await createTemplate(context.server, organization, {
      tcl: Buffer.from('flow:\n  - type: terraformPlan\n    step: 100\n').toString('base64'),
    });
    const other = await createWorkspace(context.server, organization);
    const { client: made } = client(context.server.url, context.server.adminToken);
    const received = { workspace: [] as unknown[], organization: [] as unknown[], other: [] as unknown[] };
    const listen = (query: string, variables: Record<string, string>, into: unknown[]) =>
      made.subscribe(
        { query, variables },
        { next: (value) => into.push(value.data), error: (error) => into.push(error), complete: () => undefined },
      );
    const stops = [
      listen(workspaceSubscription, { workspaceId: workspace }, received.workspace),
      listen(
        'subscription ($id: ID!) { organizationJobStatusChanged(organizationId: $id) { jobId workspaceId status } }',
        { id: organization },
        received.organization,
      ),
      listen(workspaceSubscription, { workspaceId: other }, received.other),
    ];
    const runNow = (on: string) =>
      createRecord(
        context.server,
        `/api/v1/organization/${organization}/job`,
        'job',
        { templateReference: template, overrideBranch: '', via: 'UI', targetAddrs: [], replaceAddrs: [] },
        { relationships: { workspace: { data: { type: 'workspace', id: on } } } },
      );
    const settle = async (done: () => boolean) => {
      for (let tries = 0; tries < 250 && !done(); tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    // The protocol does not acknowledge a subscription: jobs are started until each subscription has heard one.
    for (const [on, into] of [
      [workspace, received.workspace],
      [workspace, received.organization],
      [other, received.other],
    ] as const) {
      for (let attempt = 0; into.length === 0; attempt++) {
        assert.ok(attempt < 10, 'no job event was heard');
        await runNow(on);
        await settle(() => into.length > 0);
      }
    }
    const job = await runNow(workspace);
    const cancelled = await context.server.request('PATCH', `/api/v1/organization/${organization}/job/${job}`, {
      body: { data: { type: 'job', id: job, attributes: { status: 'cancelled' } } },
    });
    assert.equal(cancelled.status, 204, cancelled.text);
    // Only the events of this job: late ones of the warm-up jobs may still arrive.
    const of = (list: unknown[], field: string) =>
      list.map((data) => (data as Record<string, { jobId: number }>)[field]).filter((event) => event?.jobId === Number(job));
    await settle(
      () => of(received.workspace, 'jobStatusChanged').length >= 2 && of(received.organization, 'organizationJobStatusChanged').length >= 2,
    );
    const expected = ['pending', 'cancelled'].map((status) => ({ jobId: Number(job), workspaceId: workspace, status }));
    assert.deepEqual(of(received.workspace, 'jobStatusChanged'), expected);
    assert.deepEqual(of(received.organization, 'organizationJobStatusChanged'), expected);
    assert.deepEqual(of(received.other, 'jobStatusChanged'), []);
    for (const stop of stops) stop();
    await made.dispose();
  });

  it('keeps the connection of a token that lives longer than a timer can wait (30 days, the default of stratum token)', async () => {
    const lasting = await context.server.token({ groups: ['STRATUM_ADMIN'], ttlSeconds: 30 * 24 * 3600 });
    const { client: made, closed } = client(context.server.url, lasting);
    const outcome = await Promise.race([
      first(made, 'subscription ($id: ID!) { organizationJobStatusChanged(organizationId: $id) { jobId status } }', { id: organization }),
      closed.then((event) => ({ closedWith: event.code })),
      new Promise((resolve) => setTimeout(() => resolve('open'), 1500)),
    ]);
    assert.equal(outcome, 'open');
    await made.dispose();
  });

  it("refuses a subscription to another organization's workspace or organization as not found, and keeps the connection", async () => {
    const outsider = await context.server.token({ groups: ['live-channel-outsiders'] });
    const { client: made } = client(context.server.url, outsider);
    assert.deepEqual(await first(made, workspaceSubscription, { workspaceId: workspace }), { errors: ['The workspace was not found.'] });
    const organizationQuery = 'subscription ($id: ID!) { organizationJobStatusChanged(organizationId: $id) { jobId status } }';
    assert.deepEqual(await first(made, organizationQuery, { id: organization }), { errors: ['The organization was not found.'] });
    assert.deepEqual(await first(made, workspaceSubscription, { workspaceId: 'not-an-id' }), { errors: ['The workspace was not found.'] });
    const invalid = await first(made, 'subscription { nothing }', {});
    assert.match(invalid.errors?.[0] ?? '', /nothing/);
    await made.dispose();
  });
});

describeEachStore('long-lived connections of one caller', { env: { STRATUM_LONG_CONNECTIONS_PER_CALLER: '2' } }, (context) => {
  const organizationQuery = 'subscription ($id: ID!) { organizationJobStatusChanged(organizationId: $id) { jobId status } }';
  let organization: string;
  let workspace: string;
  let template: string;
  before(async () => {
    organization = await createOrganization(context.server);
    workspace = await createWorkspace(context.server, organization);
    template = await createTemplate(context.server, organization, {
      tcl: Buffer.from('flow:\n  - type: terraformPlan\n    step: 100\n').toString('base64'),
    });
  });
  const runNow = () =>
    createRecord(
      context.server,
      `/api/v1/organization/${organization}/job`,
      'job',
      { templateReference: template, overrideBranch: '', via: 'UI', targetAddrs: [], replaceAddrs: [] },
      { relationships: { workspace: { data: { type: 'workspace', id: workspace } } } },
    );
  /** A connection that subscribed and heard a job's event: it holds its slot. */
  async function listening(token: string) {
    const made = client(context.server.url, token);
    const heard: unknown[] = [];
    made.client.subscribe(
      { query: organizationQuery, variables: { id: organization } },
      { next: (value) => heard.push(value), error: (error) => heard.push(error), complete: () => undefined },
    );
    // Filled by the subscription's callback, which the checks below cannot see.
    const silent = () => heard.length === 0;
    for (let attempt = 0; silent(); attempt++) {
      assert.ok(attempt < 10, 'no job event was heard');
      await runNow();
      for (let tries = 0; tries < 50 && silent(); tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { ...made, heard };
  }

  it('keeps one caller to its share of WebSockets and log streams together, across its tokens, and leaves other callers theirs', async () => {
    const subject = `holder-${Date.now()}@example.com`;
    // Two tokens of one person: the share is the person's, not each token's.
    const held = [
      await listening(await context.server.token({ subject, groups: ['STRATUM_ADMIN'] })),
      await listening(await context.server.token({ subject, groups: ['STRATUM_ADMIN'] })),
    ];
    const third = client(context.server.url, await context.server.token({ subject, groups: ['STRATUM_ADMIN'] }));
    void first(third.client, organizationQuery, { id: organization });
    assert.equal((await third.closed).code, 4429);
    await third.client.dispose();
    // A log stream counts in the same share: 429, with Retry-After.
    const job = await runNow();
    const steps = await context.server.get(`/api/v1/organization/${organization}/job/${job}/step`);
    const step = (steps.body.data as { id: string }[])[0]?.id;
    const stream = await context.server.get(`/tfoutput/v1/organization/${organization}/job/${job}/step/${step}/stream`, {
      token: await context.server.token({ subject, groups: ['STRATUM_ADMIN'] }),
    });
    assert.equal(stream.status, 429, stream.text);
    assert.equal(stream.body.errors[0].code, 'too_many_streams');
    assert.ok(stream.headers.get('retry-after'));
    // Another caller is not held back.
    const other = await listening(await context.server.token({ groups: ['STRATUM_ADMIN'] }));
    await other.client.dispose();
    // A connection closed frees its slot.
    await held[0]?.client.dispose();
    const again = await listening(await context.server.token({ subject, groups: ['STRATUM_ADMIN'] }));
    for (const connection of [again, held[1]]) await connection?.client.dispose();
  });

  it('closes a subscription once its caller loses access: its team deleted, its events stop and its connection closes', async () => {
    const group = `live-team-${Date.now()}`;
    const team = await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: group, role: 'read' });
    const member = await listening(await context.server.token({ groups: [group] }));
    const deleted = await context.server.request('DELETE', `/api/v1/organization/${organization}/team/${team}`);
    assert.equal(deleted.status, 204, deleted.text);
    // Access is checked again when an event comes, at most every few seconds.
    await new Promise((resolve) => setTimeout(resolve, 5200));
    const before = member.heard.length;
    const outcome = await Promise.race([
      member.closed,
      (async () => {
        for (let attempt = 0; attempt < 20; attempt++) {
          await runNow();
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        return 'still open';
      })(),
    ]);
    assert.notEqual(outcome, 'still open');
    const { code, reason } = outcome as { code: number; reason: string };
    assert.deepEqual({ code, reason }, { code: 4403, reason: 'Forbidden: the token was revoked or its access withdrawn' });
    assert.equal(member.heard.length, before, 'no event reached it after its access went');
    await member.client.dispose();
  });

  it('ends a log stream once its token is revoked, and refuses it again', async () => {
    const group = `stream-team-${Date.now()}`;
    await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: group, role: 'read' });
    const created = await context.server.post('/access-token/v1/teams', { group, description: 'a stream', days: 1, hours: 0, minutes: 0 });
    assert.equal(created.status, 201, created.text);
    const { token, id } = created.body as { token: string; id: string };
    // A job nobody runs: its step stays pending and its stream open.
    const job = await runNow();
    const steps = await context.server.get(`/api/v1/organization/${organization}/job/${job}/step`);
    const step = (steps.body.data as { id: string }[])[0]?.id;
    const address = `/tfoutput/v1/organization/${organization}/job/${job}/step/${step}/stream`;
    const streaming = context.server.get(address, { token });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const revoked = await context.server.request('DELETE', `/access-token/v1/teams/${id}`);
    assert.equal(revoked.status, 202, revoked.text);
    const outcome = await Promise.race([
      streaming.then((answer) => answer.status),
      new Promise((resolve) => setTimeout(() => resolve('still streaming'), 12_000)),
    ]);
    assert.equal(outcome, 200, 'the stream ended');
    assert.equal((await context.server.get(address, { token })).status, 401);
  });
});

/**
 * The live channel at /subscriptions, spoken by graphql-ws's own client over a real WebSocket, as
 * Terrakube's web UI speaks it: the bearer token in the connection parameters, then
 * `jobStatusChanged(workspaceId)` and `organizationJobStatusChanged(organizationId)`.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createOrganization, createWorkspace, describeEachStore } from './harness.ts';

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

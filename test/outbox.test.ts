import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { newRecordId } from '../src/store/record-id.ts';
import {
  assertError,
  createOrganization,
  createRecord,
  createTemplate,
  createWorkspace,
  describeEachStore,
  eventually,
} from './harness.ts';

const jsonApi = { 'content-type': 'application/vnd.api+json' };
const atomic = 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"';

/** A notification destination on loopback: records the job messages it receives; a path with `hold` is answered only when released. */
class Receiver {
  readonly received: { path: string; body: { jobId?: number; status?: string } }[] = [];
  private readonly held: ServerResponse[] = [];
  private readonly server: Server;
  url = '';

  constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '';
        this.received.push({ path, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as { jobId?: number } });
        if (path.includes('hold')) this.held.push(response);
        else response.end('ok');
      });
    });
  }

  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  release(): void {
    for (const response of this.held.splice(0)) response.end('ok');
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }

  /** The messages sent to a destination tagged `tag`. */
  heard(tag: string) {
    return this.received.filter((message) => message.path.includes(`tag=${tag}`)).map((message) => message.body);
  }
}

const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.stop());

describeEachStore(
  'the outbox of job events',
  { env: { STRATUM_OUTBOUND_ALLOW: '127.0.0.1', STRATUM_OUTBOUND_TIMEOUT_MS: '5000' } },
  (context) => {
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

    /** A webhook of the workspace, tagged, for the job statuses given. */
    async function webhook(tag: string, statuses: string[], path = 'ok', at = workspace): Promise<void> {
      const id = await createRecord(
        context.server,
        `/api/v1/organization/${organization}/workspace/${at}/notificationConfiguration`,
        'notification_configuration',
        { name: `hook-${tag}`, channelType: 'WEBHOOK', destinationUrl: `${receiver.url}/${path}?tag=${tag}`, active: true },
      );
      for (const jobStatus of statuses) {
        const trigger = await context.server.request('POST', `/api/v1/notification_configuration/${id}/triggers`, {
          body: { data: { type: 'notification_trigger', attributes: { jobStatus } } },
          headers: jsonApi,
        });
        assert.equal(trigger.status, 201, trigger.text);
      }
    }

    const createJob = (at = workspace) =>
      createRecord(
        context.server,
        `/api/v1/organization/${organization}/job`,
        'job',
        { templateReference: template, overrideBranch: '', via: 'UI', targetAddrs: [], replaceAddrs: [] },
        { relationships: { workspace: { data: { type: 'workspace', id: at } } } },
      );

    /** The outbox rows of one job's events, as stored. */
    const rowsOf = async (jobId: number) =>
      (await context.server.query('select * from outbox_event order by id')).filter(
        (row) => (JSON.parse(String(row.payload)) as { jobId?: number }).jobId === jobId,
      );

    it('delivers, once the server starts, the events a process that died after their commit left undelivered, and deletes their rows', async () => {
      const tag = randomUUID();
      await webhook(tag, ['completed', 'failed']);
      assert.equal(await context.server.terminate(), 0);
      // As a process killed between commit and delivery leaves them: one never taken, one whose
      // taker's lease lapsed; and one a live replica holds, which waits for its lease.
      const event = (jobId: number, status: string) =>
        JSON.stringify({ jobId, workspaceId: workspace, organizationId: organization, templateId: template, status });
      const insert = (jobId: number, status: string, claimedUntil: string | null, attempts: number) =>
        context.server.execute(
          'insert into outbox_event (id, topic, payload, created_date, claimed_until, attempts) values ($1, $2, $3, $4, $5, $6)',
          [newRecordId(), 'jobStatusChanged', event(jobId, status), new Date().toISOString(), claimedUntil, attempts],
        );
      await insert(900001, 'completed', null, 0);
      await insert(900002, 'failed', new Date(Date.now() - 1000).toISOString(), 1);
      await insert(900003, 'completed', new Date(Date.now() + 3600_000).toISOString(), 1);

      await context.server.spawn();
      const heard = await eventually('the leftover events at the webhook', () => {
        const messages = receiver.heard(tag);
        assert.equal(messages.length, 2);
        return messages;
      });
      assert.deepEqual(heard.map((message) => [message.jobId, message.status]).sort(), [
        [900001, 'completed'],
        [900002, 'failed'],
      ]);
      await eventually('the delivered rows deleted', async () => {
        assert.deepEqual(await rowsOf(900001), []);
        assert.deepEqual(await rowsOf(900002), []);
      });
      // The one another replica holds is left to it while its lease lasts.
      assert.equal((await rowsOf(900003)).length, 1);
      assert.equal(
        receiver.heard(tag).some((message) => message.jobId === 900003),
        false,
      );
      const deliveries = (await context.server.get(`/notification/v1/workspace/${workspace}/deliveries`)).body as { jobId: number }[];
      assert.deepEqual(
        deliveries
          .map((delivery) => delivery.jobId)
          .filter((jobId) => jobId > 900000)
          .sort(),
        [900001, 900002],
      );
    });

    it('writes the event of a status change in its transaction, and deletes its row once it is delivered', async () => {
      const tag = randomUUID();
      // A workspace of its own: the held receiver slows no other test's events.
      const own = await createWorkspace(context.server, organization);
      await webhook(tag, ['pending'], 'hold', own);
      const job = Number(await createJob(own));
      // The receiver holds the delivery: the row is there, taken by the relay, until it answers.
      await eventually('the held delivery', () => assert.equal(receiver.heard(tag).length, 1));
      const [row, ...others] = await rowsOf(job);
      assert.equal(others.length, 0);
      assert.ok(row !== undefined);
      assert.equal(row.topic, 'jobStatusChanged');
      assert.deepEqual(JSON.parse(String(row.payload)), {
        jobId: job,
        workspaceId: own,
        organizationId: organization,
        templateId: template,
        status: 'pending',
      });
      assert.equal(Number(row.attempts), 1);
      assert.ok(String(row.claimed_until) > new Date().toISOString(), 'the row is held by the relay delivering it');
      receiver.release();
      await eventually('the delivered row deleted', async () => assert.deepEqual(await rowsOf(job), []));
      assert.equal(receiver.heard(tag).length, 1);
    });

    it('leaves no outbox row, and delivers nothing, for a write that rolled back', async () => {
      const tag = randomUUID();
      await webhook(tag, ['cancelled']);
      const job = await createJob();
      await eventually('the new job’s event delivered', async () => assert.deepEqual(await rowsOf(Number(job)), []));
      // The job's cancel, then an operation that fails: the batch is one transaction, undone whole.
      const response = await context.server.request('POST', '/api/v1/operations', {
        body: {
          'atomic:operations': [
            { op: 'update', data: { type: 'job', id: job, attributes: { status: 'cancelled' } } },
            { op: 'remove', ref: { type: 'workspace', id: randomUUID() } },
          ],
        },
        headers: { 'content-type': atomic, accept: atomic },
      });
      assertError(response, 404, '/atomic:operations/1');
      assert.equal((await context.server.get(`/api/v1/organization/${organization}/job/${job}`)).body.data.attributes.status, 'pending');
      assert.deepEqual(await rowsOf(Number(job)), []);
      // The same cancel on its own is delivered: had the undone one been, it would have arrived first.
      const cancelled = await context.server.request('PATCH', `/api/v1/organization/${organization}/job/${job}`, {
        body: { data: { type: 'job', id: job, attributes: { status: 'cancelled' } } },
      });
      assert.equal(cancelled.status, 204, cancelled.text);
      await eventually('the cancel at the webhook', () => assert.equal(receiver.heard(tag).length, 1));
      await eventually('its row deleted', async () => assert.deepEqual(await rowsOf(Number(job)), []));
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(receiver.heard(tag).length, 1);
    });
  },
);

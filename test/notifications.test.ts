import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, it } from 'node:test';
import Sqlite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../src/model/index.ts';
import { appliesToTemplate, appliesToTemplateCondition } from '../src/notifications/narrowing.ts';
import { notificationRecords } from '../src/resources/index.ts';
import { ApiDescription } from './api-description.ts';
import { data, nodes } from './graphql-helpers.ts';
import { assertError, createOrganization, createRecord, createTemplate, createWorkspace, describeEachStore } from './harness.ts';

const jsonApi = { 'content-type': 'application/vnd.api+json' };

type Connection = Parameters<typeof nodes>[0];

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A destination on loopback: records what it receives and answers by path: /ok 200, /fail 500
 * until told to recover, /silent never, /large a body far over the limit, /moved a redirect.
 */
class Receiver {
  readonly received: Received[] = [];
  failing = true;
  private readonly server: Server;
  private readonly held: ServerResponse[] = [];
  url = '';

  constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '';
        this.received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        if (path.startsWith('/ok')) response.end('ok');
        else if (path.startsWith('/fail')) {
          response.statusCode = this.failing ? 500 : 200;
          response.end(this.failing ? 'receiver is down' : 'back');
        } else if (path.startsWith('/silent')) this.held.push(response);
        else if (path.startsWith('/large')) response.end('x'.repeat(1024 * 1024));
        else if (path.startsWith('/moved')) {
          response.writeHead(302, { location: `${this.url}/ok?redirected=1` });
          response.end();
        } else {
          response.statusCode = 404;
          response.end();
        }
      });
    });
  }

  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const response of this.held) response.destroy();
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }

  /** What arrived at one path. */
  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }
}

const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.stop());

describeEachStore(
  'notifications',
  { env: { STRATUM_OUTBOUND_ALLOW: '127.0.0.1', STRATUM_OUTBOUND_TIMEOUT_MS: '1500', STRATUM_NOTIFICATION_DELIVERIES_KEPT: '3' } },
  (context) => {
    let organization: string;
    let workspace: string;
    let template: string;

    before(async () => {
      // Each store's run starts with an empty receiver, so counts and first messages are its own.
      receiver.received.length = 0;
      organization = await createOrganization(context.server);
      workspace = await createWorkspace(context.server, organization);
      template = await createTemplate(context.server, organization);
    });

    /** A configuration as the editor's create form sends it, at the organization or one workspace. */
    async function createConfiguration(attributes: Record<string, unknown>, at: { workspace?: string; token?: string } = {}) {
      const base =
        at.workspace === undefined
          ? `/api/v1/organization/${organization}`
          : `/api/v1/organization/${organization}/workspace/${at.workspace}`;
      const response = await context.server.request('POST', `${base}/notificationConfiguration`, {
        body: {
          data: {
            type: 'notification_configuration',
            attributes: {
              name: 'Prod alerts',
              channelType: 'WEBHOOK',
              destinationUrl: `${receiver.url}/ok`,
              active: true,
              messageStyle: 'DETAILED',
              ...attributes,
            },
          },
        },
        headers: jsonApi,
        ...(at.token === undefined ? {} : { token: at.token }),
      });
      return response;
    }

    async function created(attributes: Record<string, unknown>, at: { workspace?: string } = {}): Promise<string> {
      const response = await createConfiguration(attributes, at);
      assert.equal(response.status, 201, response.text);
      return String(response.body.data.id);
    }

    const test = (id: string, token?: string) =>
      context.server.request('POST', `/notification/v1/configuration/${id}/test`, token === undefined ? {} : { token });

    /** A team of the organization with these flags, and a token of its group. */
    async function memberToken(flags: Record<string, unknown>, organizationId = organization): Promise<string> {
      const group = `team-${randomUUID()}`;
      await createRecord(context.server, `/api/v1/organization/${organizationId}/team`, 'team', { name: group, ...flags });
      return context.server.token({ groups: [group] });
    }

    it('adds, edits and deletes organization and workspace configurations as the web UI does, and lists them as it reads them', async () => {
      const orgWide = await created({ name: 'Everyone', signingSecret: 'org secret' });
      const own = await created(
        { name: 'This workspace', channelType: 'SLACK', destinationUrl: 'https://hooks.slack.com/services/T/B/X' },
        { workspace },
      );

      // Its triggers, created one by one and deleted by id, and its templates replaced as a whole.
      const triggers: Record<string, string> = {};
      for (const jobStatus of ['completed', 'failed', 'waitingApproval']) {
        const trigger = await context.server.request('POST', `/api/v1/notification_configuration/${own}/triggers`, {
          body: { data: { type: 'notification_trigger', attributes: { jobStatus } } },
          headers: jsonApi,
        });
        assert.equal(trigger.status, 201, trigger.text);
        triggers[jobStatus] = String(trigger.body.data.id);
      }
      const removed = await context.server.request('DELETE', `/api/v1/notification_configuration/${own}/triggers/${triggers.failed}`);
      assert.equal(removed.status, 204, removed.text);
      const templates = await context.server.request('PATCH', `/api/v1/notification_configuration/${own}/relationships/templates`, {
        body: { data: [] },
        headers: jsonApi,
      });
      assert.equal(templates.status, 204, templates.text);

      // The list page's query, as NotificationConfigurationList sends it.
      const list = await data(
        context.server,
        `{ organization(ids: ["${organization}"]) { edges { node { notificationConfiguration { edges { node {
            id name description channelType destinationUrl active workspace { edges { node { id } } } } } } } } } }`,
      );
      const listed = nodes(nodes(list.organization)[0]?.notificationConfiguration as Connection) as { id: string; workspace: Connection }[];
      assert.deepEqual(
        listed.map((node) => [node.id, nodes(node.workspace).map((w) => w.id)]),
        [
          [orgWide, []],
          [own, [workspace]],
        ],
      );

      // The editor's query, at the root as Terrakube names it.
      const edited = await data(
        context.server,
        `{ notification_configuration(ids: ["${own}"]) { edges { node {
            name description channelType destinationUrl active messageStyle
            workspace { edges { node { id } } } triggers { edges { node { id jobStatus } } } templates { edges { node { id } } } } } } }`,
      );
      const node = nodes(edited.notification_configuration)[0] as {
        channelType: string;
        messageStyle: string;
        workspace: Connection;
        triggers: Connection;
        templates: Connection;
      };
      assert.equal(node.channelType, 'SLACK');
      assert.equal(node.messageStyle, 'DETAILED');
      assert.deepEqual(
        nodes(node.workspace).map((w) => w.id),
        [workspace],
      );
      assert.deepEqual(
        nodes(node.triggers)
          .map((t) => t.jobStatus)
          .sort(),
        ['completed', 'waitingApproval'],
      );
      assert.deepEqual(nodes(node.templates), []);

      // The edit form's PATCH, by id alone.
      const patched = await context.server.request('PATCH', `/api/v1/notification_configuration/${own}`, {
        body: {
          data: { id: own, type: 'notification_configuration', attributes: { name: 'Renamed', messageStyle: 'SIMPLE', active: false } },
        },
        headers: jsonApi,
      });
      assert.equal(patched.status, 204, patched.text);
      const read = await context.server.get(`/api/v1/notification_configuration/${own}`);
      assert.equal(read.body.data.attributes.name, 'Renamed');
      assert.equal(read.body.data.attributes.active, false);

      assert.equal((await context.server.request('DELETE', `/api/v1/notification_configuration/${own}`)).status, 204);
      assert.equal((await context.server.get(`/api/v1/notification_configuration/${own}`)).status, 404);
      assert.equal((await context.server.get(`/api/v1/notification_configuration/${own}/triggers/${triggers.completed}`)).status, 404);
      assert.equal((await context.server.request('DELETE', `/api/v1/notification_configuration/${orgWide}`)).status, 204);
    });

    it('lists and creates a workspace’s own configurations under its path, and deletes them with it', async () => {
      const other = await createWorkspace(context.server, organization);
      const id = await created({ name: 'Goes with it' }, { workspace: other });
      const underWorkspace = await context.server.get(`/api/v1/organization/${organization}/workspace/${other}/notificationConfiguration`);
      assert.equal(underWorkspace.status, 200, underWorkspace.text);
      assert.deepEqual(
        underWorkspace.body.data.map((record: { id: string }) => record.id),
        [id],
      );
      // A document naming another workspace than the path's is refused.
      const named = await context.server.request(
        'POST',
        `/api/v1/organization/${organization}/workspace/${other}/notificationConfiguration`,
        {
          body: {
            data: {
              type: 'notification_configuration',
              attributes: { name: 'x', channelType: 'WEBHOOK', destinationUrl: `${receiver.url}/ok` },
              relationships: { workspace: { data: { type: 'workspace', id: workspace } } },
            },
          },
          headers: jsonApi,
        },
      );
      assertError(named, 422, '/data/relationships/workspace/data');
      assert.equal((await context.server.request('DELETE', `/api/v1/organization/${organization}/workspace/${other}`)).status, 204);
      assert.equal((await context.server.get(`/api/v1/notification_configuration/${id}`)).status, 404);
    });

    it('keeps the signing secret write-only and sealed, everywhere it could be read', async () => {
      const id = await created({ signingSecret: 'never-shown-again' });
      const read = await context.server.get(`/api/v1/notification_configuration/${id}`);
      assert.equal(read.body.data.attributes.signingSecret, null);
      const listed = await context.server.get(`/api/v1/organization/${organization}/notificationConfiguration`);
      assert.ok(!listed.text.includes('never-shown-again'));
      const graph = await data(context.server, `{ notification_configuration(ids: ["${id}"]) { edges { node { signingSecret } } } }`);
      assert.equal(nodes(graph.notification_configuration)[0]?.signingSecret, null);
      const delivered = await test(id);
      assert.equal(delivered.status, 200, delivered.text);
      assert.ok(!delivered.text.includes('never-shown-again'));
      assert.ok(!context.server.logs.join('\n').includes('never-shown-again'));
    });

    it('delivers a test through a saved configuration, signed so the receiver can verify it, and records it', async () => {
      const id = await created(
        { name: 'Signed', destinationUrl: `${receiver.url}/ok?configuration=signed`, signingSecret: 's3cret' },
        { workspace },
      );
      const answer = await test(id);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.status, 'SENT');
      assert.equal(answer.body.responseStatus, 200);
      assert.equal(answer.body.responseBody, 'ok');
      const [message] = receiver.at('/ok?configuration=signed');
      assert.ok(message !== undefined);
      const expected = createHmac('sha256', 's3cret').update(message.body).digest('hex');
      assert.equal(message.headers['x-terrakube-signature'], expected);
      assert.equal(message.headers['content-type'], 'application/json');
      const payload = JSON.parse(message.body) as Record<string, unknown>;
      assert.equal(payload.configurationName, 'Signed');
      assert.equal(payload.status, 'completed');
      assert.equal(payload.test, true);
      // Without STRATUM_UI_URL there is no page to link to.
      assert.deepEqual([payload.runUrl, payload.workspaceUrl], [null, null]);

      const deliveries = await context.server.get(`/notification/v1/workspace/${workspace}/deliveries?limit=10`);
      assert.equal(deliveries.status, 200, deliveries.text);
      const [latest] = deliveries.body as Record<string, unknown>[];
      assert.ok(latest !== undefined, deliveries.text);
      assert.equal(latest.id, answer.body.id);
      assert.equal(latest.configurationName, 'Signed');
      assert.equal(latest.channelType, 'WEBHOOK');
      assert.equal(latest.attemptCount, 1);
      assert.equal(latest.jobId, 0);
      assert.ok(!deliveries.text.includes('s3cret') && !deliveries.text.includes('configuration=signed'));
    });

    it('sends Slack and Teams messages in their own formats, unsigned', async () => {
      for (const channelType of ['SLACK', 'TEAMS']) {
        const path = `/ok?channel=${channelType}`;
        const id = await created({ channelType, destinationUrl: `${receiver.url}${path}`, signingSecret: 'ignored' });
        assert.equal((await test(id)).status, 200);
        const [message] = receiver.at(path);
        assert.ok(message !== undefined);
        assert.equal(message.headers['x-terrakube-signature'], undefined);
        const payload = JSON.parse(message.body) as Record<string, unknown>;
        if (channelType === 'SLACK') assert.equal(typeof payload.text, 'string');
        else assert.equal(payload.type, 'message');
      }
    });

    it('tries a destination before it is saved, as the create form does', async () => {
      const answer = await context.server.request('POST', `/notification/v1/organization/${organization}/configuration/test`, {
        body: { channelType: 'WEBHOOK', destinationUrl: `${receiver.url}/ok?unsaved=1`, signingSecret: 'abc' },
      });
      assert.equal(answer.status, 200, answer.text);
      const [message] = receiver.at('/ok?unsaved=1');
      assert.equal(
        message?.headers['x-terrakube-signature'],
        createHmac('sha256', 'abc')
          .update(message?.body ?? '')
          .digest('hex'),
      );
      const refused = await context.server.request('POST', `/notification/v1/organization/${organization}/configuration/test`, {
        body: { channelType: 'WEBHOOK', destinationUrl: 'http://169.254.169.254/latest/meta-data/' },
      });
      assertError(refused, 502);
      const unknownField = await context.server.request('POST', `/notification/v1/organization/${organization}/configuration/test`, {
        body: { channelType: 'EMAIL', destinationUrl: `${receiver.url}/ok` },
      });
      assertError(unknownField, 400);
    });

    it('records a failing receiver, retries it on request, and refuses to retry a sent delivery', async () => {
      receiver.failing = true;
      const id = await created({ name: 'Flaky', destinationUrl: `${receiver.url}/fail` }, { workspace });
      const failed = await test(id);
      const [problem] = assertError(failed, 502);
      assert.match(problem?.detail ?? '', /127\.0\.0\.1 answered 500/);
      const [delivery] = (await context.server.get(`/notification/v1/workspace/${workspace}/deliveries`)).body as Record<string, unknown>[];
      assert.ok(delivery !== undefined);
      assert.equal(delivery.status, 'FAILED');
      assert.equal(delivery.responseStatus, 500);
      assert.equal(delivery.responseBody, 'receiver is down');
      assert.match(String(delivery.lastError), /answered 500/);

      receiver.failing = false;
      const retried = await context.server.request(
        'POST',
        `/notification/v1/workspace/${workspace}/deliveries/${String(delivery.id)}/retry`,
      );
      assert.equal(retried.status, 200, retried.text);
      assert.equal(retried.body.status, 'SENT');
      assert.equal(retried.body.attemptCount, 2);
      assert.equal(receiver.at('/fail').length, 2);
      // The same message, sent again.
      assert.equal(receiver.at('/fail')[0]?.body, receiver.at('/fail')[1]?.body);

      const again = await context.server.request('POST', `/notification/v1/workspace/${workspace}/deliveries/${String(delivery.id)}/retry`);
      assertError(again, 409);
      const elsewhere = await createWorkspace(context.server, organization);
      const wrongWorkspace = await context.server.request(
        'POST',
        `/notification/v1/workspace/${elsewhere}/deliveries/${String(delivery.id)}/retry`,
      );
      assertError(wrongWorkspace, 404);
    });

    it('gives up on a receiver that does not answer in time, and reads only the start of a long answer', async () => {
      const silent = await created({ destinationUrl: `${receiver.url}/silent` });
      const timedOut = await test(silent);
      const [problem] = assertError(timedOut, 502);
      assert.match(problem?.detail ?? '', /did not answer within 1500 ms/);

      const large = await created({ destinationUrl: `${receiver.url}/large` });
      const answer = await test(large);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.status, 'SENT');
      assert.equal(answer.body.responseBody.length, 2048);

      const moved = await created({ destinationUrl: `${receiver.url}/moved` });
      const [redirect] = assertError(await test(moved), 502);
      assert.match(redirect?.detail ?? '', /redirects are not followed/);
      assert.equal(receiver.at('/ok?redirected=1').length, 0);
    });

    it('keeps only the newest deliveries of each configuration', async () => {
      const id = await created({ name: 'Chatty', destinationUrl: `${receiver.url}/ok?chatty=1` });
      const sent: string[] = [];
      for (let i = 0; i < 5; i++) sent.push(String((await test(id)).body.id));
      const kept = await context.server.get(`/notification/v1/configuration/${id}/deliveries?limit=100`);
      assert.deepEqual(
        (kept.body as { id: string }[]).map((d) => d.id),
        sent.slice(-3).reverse(),
      );
    });

    it('refuses metadata, link-local and unlisted internal destinations, whatever the name resolves to', async () => {
      for (const [destinationUrl, reason] of [
        ['http://169.254.169.254/latest/meta-data/', /link-local, metadata/],
        ['http://[fe80::1]:8080/hook', /link-local, metadata/],
        ['http://metadata.google.internal/computeMetadata/v1/', /metadata service/],
        ['http://100.100.100.200/latest/meta-data/', /link-local, metadata/],
        ['http://[::ffff:169.254.169.254]/', /link-local, metadata/],
        ['http://127.0.0.2:9/hook', /STRATUM_OUTBOUND_ALLOW does not list/],
        ['http://10.1.2.3/hook', /STRATUM_OUTBOUND_ALLOW does not list/],
        ['http://0.0.0.0:80/', /unspecified/],
      ] as const) {
        const id = await created({ destinationUrl });
        const [problem] = assertError(await test(id), 502);
        assert.match(problem?.detail ?? '', reason, destinationUrl);
        assert.ok(!(problem?.detail ?? '').includes('/latest'), 'the path of a destination is never told');
      }
    });

    it('answers as the API description says, in success and in failure', async () => {
      const api = await ApiDescription.of((await context.server.get('/api/openapi.json', { token: null })).body);
      const operation = (method: string, path: string) => {
        const found = api.operations().find((op) => op.method === method && op.path === path);
        assert.ok(found !== undefined, `${method} ${path} is not described`);
        return found;
      };
      const check = (method: string, path: string, response: Awaited<ReturnType<typeof test>>) =>
        api.check(operation(method, path), response, path);
      const configurationTest = '/notification/v1/configuration/{notification_configurationId}/test';
      const own = await created({ name: 'Described', destinationUrl: `${receiver.url}/fail?described=1` }, { workspace });
      receiver.failing = true;
      check('post', configurationTest, await test(own));
      receiver.failing = false;
      check('post', configurationTest, await test(own));
      const deliveries = await context.server.get(`/notification/v1/workspace/${workspace}/deliveries?limit=100`);
      check('get', '/notification/v1/workspace/{workspaceId}/deliveries', deliveries);
      const failed = (deliveries.body as { id: string; status: string }[]).find((d) => d.status === 'FAILED');
      assert.ok(failed !== undefined);
      const retryPath = '/notification/v1/workspace/{workspaceId}/deliveries/{deliveryId}/retry';
      const retry = () => context.server.request('POST', `/notification/v1/workspace/${workspace}/deliveries/${failed.id}/retry`);
      check('post', retryPath, await retry());
      check('post', retryPath, await retry());
      check(
        'get',
        '/notification/v1/configuration/{notification_configurationId}/deliveries',
        await context.server.get(`/notification/v1/configuration/${own}/deliveries`),
      );
      const destinationTest = '/notification/v1/organization/{organizationId}/configuration/test';
      for (const destinationUrl of [`${receiver.url}/ok?described=1`, 'http://169.254.169.254/']) {
        const answer = await context.server.request('POST', `/notification/v1/organization/${organization}/configuration/test`, {
          body: { channelType: 'TEAMS', destinationUrl },
        });
        check('post', destinationTest, answer);
      }
      assert.deepEqual(api.problems, []);
      assert.deepEqual([...api.seen.entries()].map(([id, statuses]) => [id, [...statuses].sort()]).sort(), [
        ['notification_configuration_deliveries', [200]],
        ['retry_notification_delivery', [200, 409]],
        ['test_notification_configuration', [200, 502]],
        ['test_notification_destination', [200, 502]],
        ['workspace_notification_deliveries', [200]],
      ]);
    });

    it('refuses bad inputs with JSON:API errors', async () => {
      for (const [attributes, pointer] of [
        [{ channelType: 'EMAIL' }, '/data/attributes/channelType'],
        [{ destinationUrl: 'not a url' }, '/data/attributes/destinationUrl'],
        [{ destinationUrl: 'ftp://example.com/x' }, '/data/attributes/destinationUrl'],
        [{ destinationUrl: 'https://user:pass@example.com/x' }, '/data/attributes/destinationUrl'],
        [{ messageStyle: 'LOUD' }, '/data/attributes/messageStyle'],
        [{ name: null }, '/data/attributes/name'],
      ] as const) {
        assertError(await createConfiguration(attributes), 422, pointer);
      }
      const id = await created({});
      const badStatus = await context.server.request('POST', `/api/v1/notification_configuration/${id}/triggers`, {
        body: { data: { type: 'notification_trigger', attributes: { jobStatus: 'exploded' } } },
        headers: jsonApi,
      });
      assertError(badStatus, 422, '/data/attributes/jobStatus');
      const once = { data: { type: 'notification_trigger', attributes: { jobStatus: 'failed' } } };
      assert.equal(
        (await context.server.request('POST', `/api/v1/notification_configuration/${id}/triggers`, { body: once, headers: jsonApi }))
          .status,
        201,
      );
      assertError(
        await context.server.request('POST', `/api/v1/notification_configuration/${id}/triggers`, { body: once, headers: jsonApi }),
        409,
      );
      const narrowed = await context.server.request('PATCH', `/api/v1/notification_configuration/${id}/relationships/templates`, {
        body: { data: { type: 'template', id: template } },
        headers: jsonApi,
      });
      assertError(narrowed, 400, '/data');
      assertError(await context.server.get(`/notification/v1/workspace/${workspace}/deliveries?limit=0`), 400);
      assertError(await context.server.get(`/notification/v1/workspace/${workspace}/deliveries?limit=many`), 400);
      assertError(await test(randomUUID()), 404);
      assertError(await test('not-an-id'), 404);
    });

    it('keeps organizations apart, and lets only those who manage workspaces write and test', async () => {
      const elsewhere = await createOrganization(context.server);
      const theirs = await created({ name: 'Not yours' });
      const outsider = await memberToken({ manageWorkspace: true }, elsewhere);
      assertError(await context.server.get(`/api/v1/notification_configuration/${theirs}`, { token: outsider }), 404);
      assertError(await test(theirs, outsider), 404);
      assertError(await context.server.get(`/notification/v1/workspace/${workspace}/deliveries`, { token: outsider }), 404);
      const outside = await context.server.request('POST', `/notification/v1/organization/${organization}/configuration/test`, {
        body: { channelType: 'WEBHOOK', destinationUrl: `${receiver.url}/ok` },
        token: outsider,
      });
      assertError(outside, 404);
      // A workspace of another organization cannot be linked.
      const foreignWorkspace = await createWorkspace(context.server, elsewhere);
      assertError(
        await context.server.request(
          'POST',
          `/api/v1/organization/${organization}/workspace/${foreignWorkspace}/notificationConfiguration`,
          {
            body: {
              data: {
                type: 'notification_configuration',
                attributes: { name: 'x', channelType: 'WEBHOOK', destinationUrl: `${receiver.url}/ok` },
              },
            },
            headers: jsonApi,
          },
        ),
        404,
      );

      const reader = await memberToken({});
      assertError(await createConfiguration({}, { token: reader }), 403);
      assertError(await test(theirs, reader), 403);
      assertError(await context.server.get(`/notification/v1/workspace/${workspace}/deliveries`, { token: reader }), 403);
      const manager = await memberToken({ manageWorkspace: true });
      assert.equal((await createConfiguration({ name: 'By a manager' }, { token: manager })).status, 201);
      assert.equal((await test(theirs, manager)).status, 200);
    });

    it('narrows a configuration to templates as the web UI edits it, and reads the list back every way', async () => {
      const id = await created({ name: 'Narrowed' });
      const second = await createTemplate(context.server, organization);
      const relationship = `/api/v1/notification_configuration/${id}/relationships/templates`;
      const replace = (members: unknown, token?: string) =>
        context.server.request('PATCH', relationship, {
          body: { data: members },
          headers: jsonApi,
          ...(token === undefined ? {} : { token }),
        });

      // The editor's save, a template named twice listed once.
      const saved = await replace([
        { type: 'template', id: template },
        { type: 'template', id: second },
        { type: 'template', id: template },
      ]);
      assert.equal(saved.status, 204, saved.text);
      const linkage = await context.server.get(relationship);
      assert.equal(linkage.status, 200, linkage.text);
      assert.deepEqual(
        (linkage.body.data as { type: string; id: string }[]).map((m) => [m.type, m.id]).sort(),
        [
          ['template', template],
          ['template', second],
        ].sort(),
      );
      const related = await context.server.get(`/api/v1/notification_configuration/${id}/templates`);
      assert.equal(related.status, 200, related.text);
      assert.deepEqual((related.body.data as { id: string }[]).map((t) => t.id).sort(), [template, second].sort());
      const included = await context.server.get(`/api/v1/notification_configuration/${id}?include=templates`);
      assert.equal(included.status, 200, included.text);
      assert.deepEqual(
        (included.body.data.relationships.templates.data as { id: string }[]).map((t) => t.id).sort(),
        [template, second].sort(),
      );
      assert.deepEqual(
        (included.body.included as { type: string; id: string }[]).map((r) => `${r.type}:${r.id}`).sort(),
        [`template:${template}`, `template:${second}`].sort(),
      );
      // Without include, a to-many relationship carries no linkage.
      const plain = await context.server.get(`/api/v1/notification_configuration/${id}`);
      assert.equal(plain.body.data.relationships.templates, undefined);

      // The editor's query reads them.
      const editorQuery = `{ notification_configuration(ids: ["${id}"]) { edges { node { name templates { edges { node { id } } } } } } }`;
      const readTemplates = async () =>
        nodes((nodes((await data(context.server, editorQuery)).notification_configuration)[0] as { templates: Connection }).templates)
          .map((t) => t.id)
          .sort();
      assert.deepEqual(await readTemplates(), [template, second].sort());

      // Refused whole: nothing changes unless every member is a template of this organization.
      const elsewhere = await createOrganization(context.server);
      const foreign = await createTemplate(context.server, elsewhere);
      assertError(
        await replace([
          { type: 'template', id: second },
          { type: 'template', id: foreign },
        ]),
        404,
        '/data',
      );
      assertError(await replace([{ type: 'template', id: randomUUID() }]), 404, '/data');
      assertError(await replace([{ type: 'template', id: 'not-an-id' }]), 404, '/data');
      assertError(await replace([{ type: 'workspace', id: workspace }]), 409, '/data/type');
      assertError(await replace(null), 400);
      assertError(await replace([{ id: template }]), 400);
      assert.deepEqual(await readTemplates(), [template, second].sort());
      // Members are replaced as a whole, never added or removed one by one.
      for (const method of ['POST', 'DELETE'] as const) {
        assertError(await context.server.request(method, relationship, { body: { data: [] }, headers: jsonApi }), 403);
      }

      // Writing it is updating the configuration: a reader may read it, not change it; an outsider sees nothing.
      const reader = await memberToken({});
      assert.equal((await context.server.get(relationship, { token: reader })).status, 200);
      assertError(await replace([], reader), 403);
      const outsider = await memberToken({ manageWorkspace: true }, elsewhere);
      assertError(await context.server.get(relationship, { token: outsider }), 404);
      assertError(await context.server.get(`/api/v1/notification_configuration/${id}/templates`, { token: outsider }), 404);
      assertError(await replace([], outsider), 404);
      assert.deepEqual(await readTemplates(), [template, second].sort());

      // A template deleted later leaves the list.
      const gone = await context.server.request('DELETE', `/api/v1/organization/${organization}/template/${second}`);
      assert.equal(gone.status, 204, gone.text);
      assert.deepEqual(await readTemplates(), [template]);
      assert.deepEqual(
        ((await context.server.get(relationship)).body.data as { id: string }[]).map((t) => t.id),
        [template],
      );

      // An empty list means every template again.
      assert.equal((await replace([])).status, 204);
      assert.deepEqual(await readTemplates(), []);
    });

    it('sets the templates in a create or an update body, and through GraphQL, checked as the relationship is', async () => {
      const narrowed = await createConfiguration({ name: 'Born narrowed' });
      assert.equal(narrowed.status, 201, narrowed.text);
      const bodyOf = (members: unknown) => ({
        data: {
          type: 'notification_configuration',
          attributes: { name: 'With templates', channelType: 'WEBHOOK', destinationUrl: `${receiver.url}/ok` },
          relationships: { templates: { data: members } },
        },
      });
      const withTemplates = await context.server.request(
        'POST',
        `/api/v1/organization/${organization}/notificationConfiguration?include=templates`,
        {
          body: bodyOf([{ type: 'template', id: template }]),
          headers: jsonApi,
        },
      );
      assert.equal(withTemplates.status, 201, withTemplates.text);
      const id = String(withTemplates.body.data.id);
      assert.deepEqual(withTemplates.body.data.relationships.templates.data, [{ type: 'template', id: template }]);
      const elsewhere = await createOrganization(context.server);
      const foreign = await createTemplate(context.server, elsewhere);
      const before = (await context.server.get(`/api/v1/organization/${organization}/notificationConfiguration`)).body.data
        .length as number;
      assertError(
        await context.server.request('POST', `/api/v1/organization/${organization}/notificationConfiguration`, {
          body: bodyOf([{ type: 'template', id: foreign }]),
          headers: jsonApi,
        }),
        404,
        '/data/relationships/templates/data',
      );
      assertError(
        await context.server.request('POST', `/api/v1/organization/${organization}/notificationConfiguration`, {
          body: bodyOf([{ type: 'workspace', id: workspace }]),
          headers: jsonApi,
        }),
        422,
      );
      // A refused create leaves no configuration behind.
      assert.equal((await context.server.get(`/api/v1/organization/${organization}/notificationConfiguration`)).body.data.length, before);

      const cleared = await context.server.request('PATCH', `/api/v1/notification_configuration/${id}`, {
        body: { data: { type: 'notification_configuration', id, relationships: { templates: { data: [] } } } },
        headers: jsonApi,
      });
      assert.equal(cleared.status, 204, cleared.text);
      assert.deepEqual((await context.server.get(`/api/v1/notification_configuration/${id}/relationships/templates`)).body.data, []);

      const mutation = await data(
        context.server,
        `mutation { notification_configuration(op: UPDATE, data: {id: "${id}", templates: [{id: "${template}"}]}) { edges { node { templates { edges { node { id name } } } } } } }`,
      );
      const written = nodes(mutation.notification_configuration)[0] as { templates: Connection };
      assert.deepEqual(
        nodes(written.templates).map((t) => t.id),
        [template],
      );

      // Atomic operations replace it as the relationship endpoint does, all or nothing.
      const atomic = 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"';
      const operations = (members: unknown[]) =>
        context.server.request('POST', '/api/v1/operations', {
          body: {
            'atomic:operations': [
              { op: 'update', ref: { type: 'notification_configuration', id, relationship: 'templates' }, data: [] },
              { op: 'update', ref: { type: 'notification_configuration', id, relationship: 'templates' }, data: members },
            ],
          },
          headers: { 'content-type': atomic, accept: atomic },
        });
      assertError(await operations([{ type: 'template', id: foreign }]), 404, '/atomic:operations/1/data');
      const templatesOf = async () =>
        ((await context.server.get(`/api/v1/notification_configuration/${id}/relationships/templates`)).body.data as { id: string }[]).map(
          (t) => t.id,
        );
      assert.deepEqual(await templatesOf(), [template]);
      const second = await createTemplate(context.server, organization);
      const replaced = await operations([{ type: 'template', id: second }]);
      assert.equal(replaced.status < 300, true, replaced.text);
      assert.deepEqual(await templatesOf(), [second]);
    });

    it('answers whether a configuration applies to a job of a template, as job notifications ask: every one when it lists none', async () => {
      const everyTemplate = await created({ name: 'Every template' });
      const narrowed = await created({ name: 'One template' });
      const other = await createTemplate(context.server, organization);
      const saved = await context.server.request('PATCH', `/api/v1/notification_configuration/${narrowed}/relationships/templates`, {
        body: { data: [{ type: 'template', id: template }] },
        headers: jsonApi,
      });
      assert.equal(saved.status, 204, saved.text);
      const server = context.server;
      const dialect =
        server.kind === 'sqlite'
          ? new SqliteDialect({ database: new Sqlite(path.join(server.env.STRATUM_DATA_DIR ?? '', 'stratum.db'), { readonly: true }) })
          : new PostgresDialect({ pool: new pg.Pool({ connectionString: server.env.DATABASE_URL, max: 1 }) });
      const db = new Kysely<Database>({ dialect });
      try {
        const { templates } = notificationRecords;
        assert.equal(await appliesToTemplate(db, templates, everyTemplate, template), true);
        assert.equal(await appliesToTemplate(db, templates, everyTemplate, other), true);
        assert.equal(await appliesToTemplate(db, templates, narrowed, template), true);
        assert.equal(await appliesToTemplate(db, templates, narrowed, other), false);
        // The same question over many configurations at once, as a dispatcher reads a workspace's.
        const applying = await db
          .selectFrom('notification_configuration as c')
          .select('c.id')
          .where('c.id', 'in', [everyTemplate, narrowed])
          .where(appliesToTemplateCondition(templates, 'c', other))
          .execute();
        assert.deepEqual(
          applying.map((row) => row.id),
          [everyTemplate],
        );
      } finally {
        await db.destroy();
      }
    });

    it("delivers a job's status changes to the configurations with a trigger on that status, narrowed to its template or to none, signed", async () => {
      const ownWorkspace = await createWorkspace(context.server, organization);
      const plan = await createTemplate(context.server, organization, {
        tcl: Buffer.from('flow:\n  - type: terraformPlan\n    step: 100\n').toString('base64'),
      });
      const other = await createTemplate(context.server, organization);
      const trigger = async (id: string, jobStatus: string) => {
        const response = await context.server.request('POST', `/api/v1/notification_configuration/${id}/triggers`, {
          body: { data: { type: 'notification_trigger', attributes: { jobStatus } } },
          headers: jsonApi,
        });
        assert.equal(response.status, 201, response.text);
      };
      const narrow = async (id: string, templates: string[]) => {
        const response = await context.server.request('PATCH', `/api/v1/notification_configuration/${id}/relationships/templates`, {
          body: { data: templates.map((templateId) => ({ type: 'template', id: templateId })) },
          headers: jsonApi,
        });
        assert.equal(response.status, 204, response.text);
      };
      const tag = randomUUID();
      const own = await created(
        { destinationUrl: `${receiver.url}/ok?job=${tag}&to=own`, signingSecret: 'job secret' },
        { workspace: ownWorkspace },
      );
      await trigger(own, 'pending');
      await trigger(own, 'cancelled');
      const everyone = await created({ destinationUrl: `${receiver.url}/ok?job=${tag}&to=everyone` });
      await trigger(everyone, 'cancelled');
      await narrow(everyone, [plan]);
      const elsewhere = await created({ destinationUrl: `${receiver.url}/ok?job=${tag}&to=elsewhere` });
      await trigger(elsewhere, 'cancelled');
      await narrow(elsewhere, [other]);
      const inactive = await created({ destinationUrl: `${receiver.url}/ok?job=${tag}&to=inactive`, active: false });
      await trigger(inactive, 'pending');

      const job = await createRecord(
        context.server,
        `/api/v1/organization/${organization}/job`,
        'job',
        { templateReference: plan, overrideBranch: '', via: 'UI', targetAddrs: [], replaceAddrs: [] },
        { relationships: { workspace: { data: { type: 'workspace', id: ownWorkspace } } } },
      );
      const cancelled = await context.server.request('PATCH', `/api/v1/organization/${organization}/job/${job}`, {
        body: { data: { type: 'job', id: job, attributes: { status: 'cancelled' } } },
      });
      assert.equal(cancelled.status, 204, cancelled.text);
      const heard = () => receiver.received.filter((message) => message.path.includes(`job=${tag}`));
      for (let tries = 0; tries < 250 && heard().length < 3; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const messages = heard().map((message) => ({
        to: new URL(message.path, 'http://x').searchParams.get('to'),
        body: JSON.parse(message.body),
      }));
      assert.deepEqual(messages.map((message) => message.to).sort(), ['everyone', 'own', 'own']);
      for (const message of messages) assert.equal(message.body.jobId, Number(job), JSON.stringify(message.body));
      const signed = heard().filter((message) => message.path.endsWith('to=own'));
      for (const message of signed)
        assert.equal(message.headers['x-terrakube-signature'], createHmac('sha256', 'job secret').update(message.body).digest('hex'));
      // Recorded under the job's workspace, the organization-wide one too.
      const deliveries = (await context.server.get(`/notification/v1/workspace/${ownWorkspace}/deliveries`)).body as Record<
        string,
        unknown
      >[];
      assert.deepEqual(
        deliveries.map((delivery) => [delivery.event, delivery.jobId, delivery.status]),
        [
          ['job', Number(job), 'SENT'],
          ['job', Number(job), 'SENT'],
          ['job', Number(job), 'SENT'],
        ],
      );
    });

    it('lets a grant with manageWorkspace on a workspace manage that workspace’s configurations, and no others', async () => {
      const group = `contractors-${randomUUID()}`;
      await createRecord(context.server, `/api/v1/organization/${organization}/workspace/${workspace}/access`, 'access', {
        name: group,
        manageWorkspace: true,
      });
      const contractor = await context.server.token({ groups: [group] });
      const own = await createConfiguration({ name: 'Contractor' }, { workspace, token: contractor });
      assert.equal(own.status, 201, own.text);
      const ownId = String(own.body.data.id);
      assert.equal((await test(ownId, contractor)).status, 200);
      const patched = await context.server.request('PATCH', `/api/v1/notification_configuration/${ownId}`, {
        body: { data: { id: ownId, type: 'notification_configuration', attributes: { description: 'mine' } } },
        headers: jsonApi,
        token: contractor,
      });
      assert.equal(patched.status, 204, patched.text);
      assert.equal((await context.server.get(`/notification/v1/workspace/${workspace}/deliveries`, { token: contractor })).status, 200);
      // Not organization-wide ones (the organization is visible to it, its configurations are not), not another workspace's.
      assertError(await createConfiguration({}, { token: contractor }), 403);
      const other = await createWorkspace(context.server, organization);
      assertError(await createConfiguration({}, { workspace: other, token: contractor }), 404);
      assert.equal(
        (await context.server.request('DELETE', `/api/v1/notification_configuration/${ownId}`, { token: contractor })).status,
        204,
      );
    });
  },
);

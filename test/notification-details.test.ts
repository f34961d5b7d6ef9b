/**
 * What a job's notification tells about its run, on a server that knows its web UI's address
 * (STRATUM_UI_URL): the run's page and its workspace's, the commit the job ran, and why it failed,
 * in every channel's format; and a test delivery, which has no run, its workspace's page.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createRecord, createTemplate, eventually, storeKinds } from './harness.ts';
import { RunBench } from './run-fixtures.ts';

const uiUrl = 'https://terrakube.example.com/ui';

const failingScript = Buffer.from(
  'flow:\n  - type: customScripts\n    name: Check\n    step: 100\n    commands:\n      - runtime: BASH\n        priority: 0\n        before: true\n        script: echo checking; exit 3\n',
).toString('base64');

/** A receiver on loopback that keeps the body of every message, by the path it was sent to. */
async function receiver() {
  const received: { path: string; body: string }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      response.end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    stop: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

for (const kind of storeKinds) {
  describe(`the run details of a job's notifications (${kind})`, () => {
    let bench: RunBench;
    let inbox: Awaited<ReturnType<typeof receiver>>;

    before(async () => {
      inbox = await receiver();
      bench = await RunBench.start(kind, { env: { STRATUM_OUTBOUND_ALLOW: '127.0.0.1', STRATUM_UI_URL: `${uiUrl}/` } });
    });
    after(async () => {
      await bench.stop();
      await inbox.stop();
    });

    /** A configuration of the workspace, in one channel's format, told of failed jobs. */
    async function configuration(workspace: string, channelType: string, tag: string): Promise<string> {
      const id = await createRecord(
        bench.server,
        bench.org(`/workspace/${workspace}/notificationConfiguration`),
        'notification_configuration',
        {
          name: `${channelType} alerts`,
          channelType,
          destinationUrl: `${inbox.url}/${tag}/${channelType}`,
          active: true,
          messageStyle: 'DETAILED',
        },
      );
      await createRecord(bench.server, `/api/v1/notification_configuration/${id}/triggers`, 'notification_trigger', {
        jobStatus: 'failed',
      });
      return id;
    }

    it('links the run and its workspace in the web UI, and says the commit and why the job failed, in every channel', async () => {
      const workspace = await bench.workspaceOf(`checked-${kind}`, { 'main.tf': '' });
      const tag = randomUUID();
      for (const channel of ['WEBHOOK', 'SLACK', 'TEAMS']) await configuration(workspace, channel, tag);
      const template = await createTemplate(bench.server, bench.organization, { name: 'Check', tcl: failingScript });
      const jobId = await bench.startJob(workspace, template);
      const { job } = await bench.statusOf(jobId, 'failed');
      const commitId = String(job.attributes.commitId);
      assert.match(commitId, /^[0-9a-f]{40}$/);
      const reason = String(job.attributes.comments);
      assert.match(reason, /Step 100/);

      const arrived = await eventually('three messages', () => {
        const mine = inbox.received.filter((message) => message.path.startsWith(`/${tag}/`));
        assert.equal(mine.length, 3);
        return new Map(mine.map((message) => [message.path.split('/')[2], JSON.parse(message.body)]));
      });
      const workspaceUrl = `${uiUrl}/organizations/${bench.organization}/workspaces/${workspace}`;
      const runUrl = `${workspaceUrl}/runs/${jobId}`;

      const webhook = arrived.get('WEBHOOK');
      assert.deepEqual(
        { runUrl: webhook.runUrl, workspaceUrl: webhook.workspaceUrl, commitId: webhook.commitId, failureReason: webhook.failureReason },
        { runUrl, workspaceUrl, commitId, failureReason: reason },
      );
      const slack = JSON.stringify(arrived.get('SLACK'));
      assert.ok(slack.includes(`Commit: ${commitId}`), slack);
      assert.ok(slack.includes(JSON.stringify(`*Failure reason:* ${reason}`).slice(1, -1)), slack);
      assert.ok(slack.includes(`"url":"${runUrl}"`), slack);
      const teams = JSON.stringify(arrived.get('TEAMS'));
      assert.ok(teams.includes(JSON.stringify(`Failure reason: ${reason}`).slice(1, -1)), teams);
      assert.ok(teams.includes(`"url":"${runUrl}"`), teams);
    });

    it("gives a test delivery its workspace's page, and no run", async () => {
      const workspace = await bench.workspaceOf(`tested-${kind}`, { 'main.tf': '' });
      const tag = randomUUID();
      const id = await configuration(workspace, 'WEBHOOK', tag);
      const answer = await bench.server.request('POST', `/notification/v1/configuration/${id}/test`);
      assert.equal(answer.status, 200, answer.text);
      const [message] = inbox.received.filter((received) => received.path.startsWith(`/${tag}/`));
      assert.ok(message !== undefined);
      const payload = JSON.parse(message.body);
      assert.equal(payload.test, true);
      assert.equal(payload.workspaceUrl, `${uiUrl}/organizations/${bench.organization}/workspaces/${workspace}`);
      assert.deepEqual([payload.runUrl, payload.commitId, payload.failureReason], [null, null, null]);
    });
  });
}

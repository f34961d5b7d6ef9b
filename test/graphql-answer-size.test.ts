import assert from 'node:assert/strict';
import net from 'node:net';
import { before, it } from 'node:test';
import { createOrganization, createRecord, createWorkspace, describeEachStore, eventually, type TestServer } from './harness.ts';
import { graphql, graphqlPath, nodes } from './graphql-helpers.ts';
import { requestHead } from './raw-http.ts';
import { memoryDuring, scrape } from './server-metrics.ts';

/**
 * The query of the report: every workspace, its organization, and that organization's workspaces
 * again, each written under `aliases` names of its id. Over 100 workspaces it places 10,000
 * records of 900 values: 413 MB of answer, where each record was read once.
 */
const amplifying = (aliases: number, outer = 10000, inner = 10000) => {
  const ids = Array.from({ length: aliases }, (_, i) => `a${i}: id`).join(' ');
  return `{ workspace(first: ${outer}) { edges { node { organization { edges { node { workspace(first: ${inner}) { edges { node { ${ids} } } } } } } } } } }`;
};

/** Sends a GraphQL request on a connection of its own, whose answer is never read. */
async function sendUnread(server: TestServer, token: string, query: string): Promise<net.Socket> {
  const { hostname, port } = new URL(server.url);
  const socket = net.connect({ host: hostname, port: Number(port) });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  // No data listener: the socket reads no more than its buffer, and the server's writes back up.
  socket.pause();
  const body = JSON.stringify({ query });
  socket.write(
    requestHead('POST', graphqlPath, {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    }) + body,
  );
  return socket;
}

const answered = (series: Map<string, number>) =>
  series.get(`stratum_http_requests_total{method="POST",route="${graphqlPath}",status="200"}`) ?? 0;

describeEachStore(
  'GraphQL answers within the memory of answers',
  { env: { STRATUM_METRICS_PORT: '0', STRATUM_RESPONSE_MAX_MIB: '4', STRATUM_RESPONSE_MEMORY_MIB: '16' } },
  (context) => {
    let reader = '';

    before(async () => {
      const organization = await createOrganization(context.server);
      for (let i = 0; i < 100; i++) await createWorkspace(context.server, organization, { name: `ws-${i}` });
      await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: 'readers', role: 'read' });
      reader = await context.server.token({ groups: ['readers'] });
    });

    it('a reader asking for the same records again through a relationship, under 900 aliases, is refused before the answer grows, and told to ask for less', async () => {
      const response = await graphql(context.server, amplifying(900), { token: reader });
      assert.equal(response.status, 200, response.text.slice(0, 500));
      assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(response.headers.get('content-length'), String(Buffer.byteLength(response.text)), 'a short answer goes out whole');
      // Checked as a condition: an assertion would quote the answer, which may be hundreds of megabytes.
      assert.ok(response.body.data === undefined, `no part of the answer is sent; ${response.text.length} characters were`);
      assert.equal(response.body.errors.length, 1, response.text);
      const [error] = response.body.errors;
      assert.equal(error.extensions.code, 'response_too_large');
      assert.equal(error.extensions.status, 400);
      assert.equal(error.extensions.argument, 'first');
      assert.match(error.message, /more than the 4 MiB one answer may hold/);
      assert.match(error.message, /a smaller first, ids or a filter\), or for fewer fields and aliases/);
      // Where it overflowed: a page of the inner workspaces, placed once more for another outer record.
      assert.deepEqual(
        error.path.filter((step: string | number) => typeof step === 'string'),
        ['workspace', 'edges', 'node', 'organization', 'edges', 'node', 'workspace', 'edges'],
      );

      // The same query for fewer records is answered, every alias written, a piece at a time.
      const smaller = await graphql(context.server, amplifying(900, 2, 3), { token: reader });
      assert.equal(smaller.status, 200);
      assert.equal(smaller.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(smaller.headers.get('transfer-encoding'), 'chunked', `${smaller.text.length} characters`);
      assert.equal(smaller.body.errors, undefined, smaller.text.slice(0, 500));
      const outer = smaller.body.data.workspace.edges;
      assert.equal(outer.length, 2);
      for (const { node } of outer) {
        const inner = nodes(node.organization.edges[0].node.workspace);
        assert.equal(inner.length, 3);
        for (const record of inner) assert.equal(Object.keys(record).length, 900);
      }
    });

    it('990 aliases, an answer near the longest string V8 can hold, are refused the same way: no 500', async () => {
      const response = await graphql(context.server, amplifying(990), { token: reader });
      assert.equal(response.status, 200, response.text.slice(0, 500));
      assert.ok(response.body.data === undefined, `${response.text.length} characters of answer`);
      assert.deepEqual(
        response.body.errors.map((e: { extensions: { code: string; argument: string } }) => [e.extensions.code, e.extensions.argument]),
        [['response_too_large', 'first']],
      );
      assert.deepEqual(
        context.server.logs.filter((line) => line.includes('"level":50')),
        [],
      );
    });

    it('sixteen such requests at once whose answers are never read leave the server answering /healthz, its peak memory bounded (its own metrics)', async (t) => {
      const before = answered(await scrape(context.server));
      const { beforeMiB, peakMiB } = await memoryDuring(context.server, async () => {
        const sockets = await Promise.all(Array.from({ length: 16 }, () => sendUnread(context.server, reader, amplifying(900))));
        try {
          await eventually('the sixteen answered', async () => assert.equal(answered(await scrape(context.server)) - before, 16), {
            timeoutMs: 30000,
            intervalMs: 100,
          });
          assert.equal((await context.server.get('/healthz', { token: null })).status, 200);
        } finally {
          for (const socket of sockets) socket.destroy();
        }
      });
      t.diagnostic(`resident memory ${beforeMiB.toFixed(0)} MiB before, ${peakMiB.toFixed(0)} MiB at most`);
      // The sixteen share 16 MiB of answers; before answers were counted they took the server past 6 GiB, to a heap-limit abort.
      assert.ok(peakMiB - beforeMiB < 128, `resident memory went from ${beforeMiB.toFixed(0)} to ${peakMiB.toFixed(0)} MiB`);
      assert.equal((await context.server.get('/healthz', { token: null })).status, 200);
    });
  },
);

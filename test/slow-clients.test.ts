import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually, serverScript, storeKinds, TestServer } from './harness.ts';
import { assertRawErrorDocument, holdConnection, rawRequest, requestHead } from './raw-http.ts';

// These limits belong to the HTTP server in front of the store, and nothing of them depends on
// which store it is: the suites run on the first store of the run.
const store = storeKinds[0] ?? 'sqlite';

/** A healthz request on a connection of its own, which the server is asked to close. */
const healthz = (server: TestServer) =>
  rawRequest(server.url, { head: requestHead('GET', '/healthz', { connection: 'close' }), waitMs: 3000 });

describe('slow clients: a trickled request is cut', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start(store, { STRATUM_REQUEST_TIMEOUT_MS: '2000', STRATUM_HEADERS_TIMEOUT_MS: '1000' });
  });
  after(() => server.stop());

  it('a body trickled a byte at a time without a token is cut within the request timeout, and /healthz keeps answering', async () => {
    const trickled = rawRequest(server.url, {
      head: requestHead('POST', '/api/v1/organization', { 'content-type': 'application/vnd.api+json', 'content-length': 100 }),
      trickle: Array.from({ length: 100 }, () => 'x'),
      everyMs: 100,
      waitMs: 6000,
    });
    for (let i = 0; i < 3; i++) {
      await sleep(200);
      const health = await server.get('/healthz', { token: null });
      assert.equal(health.status, 200);
    }
    const answer = await trickled;
    assert.notEqual(answer.ended, 'open', 'the trickling connection was never cut');
    assert.ok(answer.ms < 2000 + 1000, `cut after ${answer.ms} ms`);
    if (answer.status !== undefined) assertRawErrorDocument(answer, 401);
    assert.equal((await server.get('/healthz', { token: null })).status, 200);
  });

  it('headers trickled a line at a time are cut within the headers timeout', async () => {
    const answer = await rawRequest(server.url, {
      head: 'GET /healthz HTTP/1.1\r\n',
      trickle: Array.from({ length: 50 }, (_, i) => `x-slow-${i}: 1\r\n`),
      everyMs: 100,
      waitMs: 5000,
    });
    assert.notEqual(answer.ended, 'open', 'the trickling connection was never cut');
    assert.ok(answer.ms < 1000 + 1000, `cut after ${answer.ms} ms`);
    assert.equal((await healthz(server)).status, 200);
  });
});

describe('slow clients: an answer sent before the body was read closes the connection', () => {
  let server: TestServer;
  let token: string;
  // The default timeouts: a connection that ends here was closed by the answer, not by a timeout.
  before(async () => {
    server = await TestServer.start(store);
    token = await server.token({ groups: ['STRATUM_ADMIN'] });
  });
  after(() => server.stop());

  const cases: { what: string; status: number; headers: () => Record<string, string | number> }[] = [
    {
      what: 'a 401 to a large body without a token',
      status: 401,
      headers: () => ({ 'content-type': 'application/vnd.api+json', 'content-length': 50 * 1024 * 1024 }),
    },
    {
      what: 'a 413 to a body over the limit',
      status: 413,
      headers: () => ({ authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json', 'content-length': 50 * 1024 * 1024 }),
    },
    {
      what: 'a 415 to a body of another media type',
      status: 415,
      headers: () => ({ authorization: `Bearer ${token}`, 'content-type': 'text/plain', 'content-length': 50 * 1024 * 1024 }),
    },
  ];
  it('an answer sent before the body was read carries Connection: close and ends the connection; a request without a body, or whose body was read, keeps it', async (t) => {
    for (const { what, status, headers } of cases) {
      await t.test(what, async () => {
        const answer = await rawRequest(server.url, {
          head: Buffer.concat([Buffer.from(requestHead('POST', '/api/v1/organization', headers())), Buffer.alloc(16 * 1024, 'x')]),
          waitMs: 3000,
        });
        assertRawErrorDocument(answer, status);
        assert.equal(answer.headers.connection, 'close', answer.text);
        assert.notEqual(answer.ended, 'open', 'the connection stayed open after the answer');
      });
    }
    await t.test('a GET without a body', async () => {
      const answer = await rawRequest(server.url, { head: requestHead('GET', '/healthz', {}), waitMs: 500 });
      assert.equal(answer.status, 200);
      assert.notEqual(answer.headers.connection, 'close');
      assert.equal(answer.ended, 'open');
    });
    await t.test('a POST whose body was read', async () => {
      const body = JSON.stringify({ data: { type: 'organization', attributes: { name: `keep-alive-${store}` } } });
      const headers = {
        authorization: `Bearer ${token}`,
        'content-type': 'application/vnd.api+json',
        'content-length': Buffer.byteLength(body),
      };
      const answer = await rawRequest(server.url, { head: requestHead('POST', '/api/v1/organization', headers) + body, waitMs: 500 });
      assert.equal(answer.status, 201, answer.text);
      assert.notEqual(answer.headers.connection, 'close');
      assert.equal(answer.ended, 'open');
    });
  });
});

describe('slow clients: the connection cap', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start(store, { STRATUM_MAX_CONNECTIONS: '3' });
  });
  after(() => server.stop());

  it('connections beyond the cap are refused, and /healthz answers again once they go away', async () => {
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await holdConnection(server.url));
    // The server accepts in order: once it has taken these three, the next one is over the cap.
    await sleep(200);
    const refused = await healthz(server);
    assert.equal(refused.status, undefined, `answered beyond the cap: ${refused.text}`);
    assert.notEqual(refused.ended, 'open');
    for (const socket of held) socket.destroy();
    await eventually('/healthz to answer again', async () => assert.equal((await healthz(server)).status, 200));
    await eventually('a warning about refused connections in the log', () =>
      assert.ok(server.logs.some((line) => line.includes('connection limit reached'))),
    );
  });
});

describe('slow clients: configuration', () => {
  it('bad limits stop the start with a message naming each variable', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-test-limits-'));
    try {
      const result = spawnSync(process.execPath, [serverScript], {
        env: {
          ...process.env,
          PORT: '0',
          DATABASE_URL: '',
          STRATUM_DATA_DIR: dataDir,
          STRATUM_REQUEST_TIMEOUT_MS: '5000',
          STRATUM_HEADERS_TIMEOUT_MS: '6000',
          STRATUM_KEEP_ALIVE_TIMEOUT_MS: 'soon',
          STRATUM_CONNECTION_TIMEOUT_MS: '0',
          STRATUM_MAX_CONNECTIONS: '-1',
        },
        encoding: 'utf8',
        timeout: 15000,
      });
      assert.equal(result.status, 1);
      for (const name of [
        'STRATUM_HEADERS_TIMEOUT_MS',
        'STRATUM_KEEP_ALIVE_TIMEOUT_MS',
        'STRATUM_CONNECTION_TIMEOUT_MS',
        'STRATUM_MAX_CONNECTIONS',
      ]) {
        assert.match(result.stderr, new RegExp(name), result.stderr);
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

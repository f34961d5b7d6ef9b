import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually, storeKinds, TestServer } from './harness.ts';
import { assertRawErrorDocument, rawRequest, requestHead } from './raw-http.ts';

// Framing errors are answered by the HTTP server before any route or store is involved: the
// suite runs on the first store of the run.
const store = storeKinds[0] ?? 'sqlite';

describe('HTTP framing errors are JSON:API error documents', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await TestServer.start(store, { STRATUM_REQUEST_TIMEOUT_MS: '2000', STRATUM_HEADERS_TIMEOUT_MS: '1000' });
    token = await server.token({ groups: ['STRATUM_ADMIN'] });
  });
  after(() => server.stop());

  it('a bad Content-Length is a 400 error document, and the connection is closed', async (t) => {
    const heads: Record<string, string> = {
      'not a number': requestHead('POST', '/api/v1/organization', { 'content-type': 'application/vnd.api+json', 'content-length': 'abc' }),
      'two different lengths': `POST /api/v1/organization HTTP/1.1\r\nhost: localhost\r\ncontent-length: 5\r\ncontent-length: 6\r\n\r\n`,
      'a length beside chunked encoding': requestHead('POST', '/api/v1/organization', {
        'content-length': 5,
        'transfer-encoding': 'chunked',
      }),
    };
    for (const [what, head] of Object.entries(heads)) {
      await t.test(what, async () => {
        const answer = await rawRequest(server.url, { head, waitMs: 3000 });
        const error = assertRawErrorDocument(answer, 400);
        assert.equal(error.title, 'Bad Request');
        assert.equal(answer.headers.connection, 'close');
        assert.notEqual(answer.ended, 'open');
      });
    }
  });

  it('headers over the size limit are a 431 error document', async () => {
    const answer = await rawRequest(server.url, {
      head: requestHead('GET', '/api/v1/organization', { authorization: `Bearer ${token}`, 'x-padding': 'x'.repeat(32 * 1024) }),
      waitMs: 3000,
    });
    const error = assertRawErrorDocument(answer, 431);
    assert.equal(error.title, 'Request Header Fields Too Large');
    assert.match(error.detail, /header/i);
    assert.notEqual(answer.ended, 'open');
  });

  it('a request that times out is a 408 error document: a body still arriving, and headers never finished', async (t) => {
    await t.test('a body trickled after a valid token', async () => {
      const answer = await rawRequest(server.url, {
        head: requestHead('POST', '/api/v1/organization', {
          authorization: `Bearer ${token}`,
          'content-type': 'application/vnd.api+json',
          'content-length': 100,
        }),
        trickle: Array.from({ length: 100 }, () => ' '),
        everyMs: 100,
        waitMs: 6000,
      });
      const error = assertRawErrorDocument(answer, 408);
      assert.equal(error.title, 'Request Timeout');
      assert.notEqual(answer.ended, 'open');
      assert.ok(answer.ms >= 1500 && answer.ms < 2000 + 1000, `answered after ${answer.ms} ms`);
    });
    await t.test('headers that never end', async () => {
      const answer = await rawRequest(server.url, { head: 'GET /healthz HTTP/1.1\r\nhost: localhost\r\n', waitMs: 5000 });
      assertRawErrorDocument(answer, 408);
      assert.notEqual(answer.ended, 'open');
      assert.ok(answer.ms < 1000 + 1000, `answered after ${answer.ms} ms`);
    });
  });

  it('a request line that is not HTTP is a 400 error document', async () => {
    const answer = await rawRequest(server.url, { head: 'HELLO THERE\r\n\r\n', waitMs: 3000 });
    assertRawErrorDocument(answer, 400);
  });
});

describe('a request arriving while the server stops', () => {
  it('is a 503 error document, and its connection is closed', async () => {
    const server = await TestServer.start(store);
    const token = await server.token({ groups: ['STRATUM_ADMIN'] });
    const { hostname, port } = new URL(server.url);
    const socket = net.connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    // A request whose body is half sent keeps its connection busy, so the stop does not close it.
    const body = JSON.stringify({ data: { type: 'organization', attributes: { name: `stopping-${randomUUID()}` } } });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' };
    socket.write(requestHead('POST', '/api/v1/organization', { ...headers, 'content-length': body.length }) + body.slice(0, 5));
    await sleep(200);
    const stopped = server.stop();
    await eventually('the server to begin stopping', () => assert.ok(server.logs.some((line) => line.includes('"stopping"'))));
    await sleep(300);
    // The rest of the body, and a second request behind it on the same connection.
    socket.write(body.slice(5) + requestHead('GET', '/api/v1/organization', headers));
    await Promise.race([closed, sleep(5000)]);
    socket.destroy();
    await stopped;
    const text = Buffer.concat(chunks).toString('utf8');
    assert.match(text, /^HTTP\/1\.1 201 /, text);
    const second = text.slice(text.indexOf('HTTP/1.1', 1));
    const [head = '', document = ''] = second.split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 503 /, text);
    assert.match(head, /\r\ncontent-type: application\/vnd\.api\+json\r\n/i, text);
    assert.match(head, /\r\nconnection: close\r\n/i, text);
    const parsed = JSON.parse(document) as { errors: { status: string; code: string; title: string; detail: string }[] };
    assert.deepEqual(Object.keys(parsed), ['errors']);
    const [error] = parsed.errors;
    assert.ok(error !== undefined, text);
    assert.equal(error.status, '503');
    assert.equal(error.title, 'Service Unavailable');
  });
});

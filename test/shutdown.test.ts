import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { stratum } from './cli-run.ts';
import { eventually, storeKinds } from './harness.ts';
import { requestHead } from './raw-http.ts';
import { adminTokenFor, startServe, type ServeProcess } from './serve-process.ts';

/** Opens a connection and sends a create whose body stops halfway: a request in flight until the rest comes. */
async function halfSentCreate(server: ServeProcess, name: string): Promise<{ finish: () => void; answer: Promise<string> }> {
  const token = await adminTokenFor(server.env.STRATUM_TOKEN_KEY ?? '');
  const { hostname, port } = new URL(server.url);
  const socket = net.connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const body = JSON.stringify({ data: { type: 'organization', attributes: { name } } });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json', 'content-length': body.length };
  socket.write(requestHead('POST', '/api/v1/organization', headers) + body.slice(0, 10));
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const answer = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(text));
    socket.on('error', () => undefined);
  });
  return { finish: () => socket.write(body.slice(10)), answer };
}

/**
 * Waits until the server has the request's headers and is waiting for the rest: a request in flight.
 * Only then does a stop have one to wait for; a connection whose headers are still unread is idle.
 */
async function inFlightRequests(server: ServeProcess, count: number): Promise<void> {
  const url = await eventually('the metrics listener', () => {
    const line = server.lines.find((l) => l.msg === 'metrics listening');
    assert.ok(line !== undefined);
    return String(line.metrics);
  });
  await eventually(
    `${count} request(s) in flight`,
    async () => assert.match(await (await fetch(url)).text(), new RegExp(`^stratum_http_requests_in_flight ${count}$`, 'm')),
    { timeoutMs: 15000 },
  );
}

const stoppingLine = (server: ServeProcess) =>
  eventually(
    'the stopping line',
    () =>
      assert.ok(
        server.lines.some((l) => String(l.msg).startsWith('stopping')),
        JSON.stringify(server.lines.map((l) => l.msg)),
      ),
    // The machine may be busy with other test files.
    { timeoutMs: 15000 },
  );

for (const kind of storeKinds) {
  describe(`stopping on a signal (${kind})`, () => {
    it('stops accepting at once, finishes the request in flight, closes the store and exits 0 with a last "stopped" line', async () => {
      const server = await startServe(kind, { STRATUM_METRICS_PORT: '0' });
      try {
        const inFlight = await halfSentCreate(server, `in-flight-${kind}`);
        await inFlightRequests(server, 1);
        server.child.kill('SIGTERM');
        await stoppingLine(server);
        await assert.rejects(fetch(`${server.url}/healthz`), 'a new connection was accepted while stopping');
        await sleep(300);
        inFlight.finish();
        const answer = await inFlight.answer;
        assert.match(answer, /^HTTP\/1\.1 201 /);
        const { code } = await server.exited;
        assert.equal(code, 0);
        const last = server.lines.at(-1);
        assert.equal(last?.msg, 'stopped');
        assert.equal(last.cutShort, false);
        // The store is closed: the data folder's lock is free for the next process.
        if (kind === 'sqlite') assert.equal(stratum(['migrate'], server.env).status, 0);
      } finally {
        await server.cleanup();
      }
    });

    it('closes a request still in flight at the deadline, then exits 1', async () => {
      const server = await startServe(kind, { STRATUM_SHUTDOWN_TIMEOUT_MS: '1000', STRATUM_METRICS_PORT: '0' });
      try {
        const inFlight = await halfSentCreate(server, `cut-short-${kind}`);
        await inFlightRequests(server, 1);
        const signalled = Date.now();
        server.child.kill('SIGTERM');
        const { code, at } = await server.exited;
        const waited = at - signalled;
        assert.equal(code, 1);
        assert.ok(waited >= 900 && waited < 5000, `exited ${waited} ms after the signal, with a 1000 ms deadline`);
        await inFlight.answer;
        assert.ok(server.lines.some((l) => String(l.msg).startsWith('shutdown deadline passed')));
        assert.deepEqual({ msg: server.lines.at(-1)?.msg, cutShort: server.lines.at(-1)?.cutShort }, { msg: 'stopped', cutShort: true });
        if (kind === 'sqlite') assert.equal(stratum(['migrate'], server.env).status, 0, 'the data folder is still locked');
      } finally {
        await server.cleanup();
      }
    });

    it('exits at once on a second signal', async () => {
      const server = await startServe(kind, { STRATUM_SHUTDOWN_TIMEOUT_MS: '60000', STRATUM_METRICS_PORT: '0' });
      try {
        await halfSentCreate(server, `impatient-${kind}`);
        await inFlightRequests(server, 1);
        server.child.kill('SIGINT');
        await stoppingLine(server);
        const signalled = Date.now();
        server.child.kill('SIGINT');
        const { code, at } = await server.exited;
        assert.equal(code, 1);
        assert.ok(at - signalled < 3000, `took ${at - signalled} ms`);
        assert.ok(server.lines.some((l) => l.msg === 'second signal: exiting at once'));
      } finally {
        await server.cleanup();
      }
    });
  });
}

describe('stopping when started through npm', () => {
  for (const launch of ['npm start', 'npx stratum serve'] as const) {
    it(`SIGTERM to \`${launch}\` reaches the server: it stops gracefully and leaves no process behind`, async () => {
      const server = await startServe('sqlite', {}, launch);
      try {
        const pid = Number(server.lines.find((l) => typeof l.address === 'string')?.pid);
        assert.ok(pid > 0 && pid !== server.child.pid, 'the server runs as a process of its own under npm');
        server.child.kill('SIGTERM');
        await server.exited;
        await eventually('the server process to exit', () => assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }), {
          timeoutMs: 15000,
        });
        assert.ok(server.lines.some((l) => String(l.msg).startsWith('stopping')));
        assert.equal(server.lines.at(-1)?.msg, 'stopped');
        // The data folder is free again: nothing holds it.
        assert.equal(stratum(['migrate'], server.env).status, 0);
      } finally {
        await server.cleanup();
      }
    });
  }
});

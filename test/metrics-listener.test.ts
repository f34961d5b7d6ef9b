import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import { describeEachStore, eventually, metricsUrl } from './harness.ts';
import { rawRequest, requestHead } from './raw-http.ts';

/** A connection that sent part of a request line and waits: what came back on it, and whether it ended. */
interface HeldConnection {
  socket: net.Socket;
  received: string;
  closed: boolean;
}

async function holdOpen(url: string): Promise<HeldConnection> {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port) });
  const held: HeldConnection = { socket, received: '', closed: false };
  socket.on('data', (chunk: Buffer) => (held.received += chunk.toString()));
  socket.on('close', () => (held.closed = true));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write('GET /metrics HTTP/1.1\r\n');
  return held;
}

/** Held connections at a time, one after another, so the server accepts them in order. */
async function holdMany(url: string, count: number): Promise<HeldConnection[]> {
  const held: HeldConnection[] = [];
  for (let i = 0; i < count; i++) held.push(await holdOpen(url));
  return held;
}

/** Connections closed as they were accepted: ended without a byte of an answer. */
const refusedAtAccept = (held: readonly HeldConnection[]) => held.filter((h) => h.closed && h.received === '').length;

/** A GET on a connection of its own, which the server is asked to close. */
const getOnce = (url: string) =>
  rawRequest(url, { head: requestHead('GET', new URL(url).pathname, { connection: 'close' }), waitMs: 5000 });

describeEachStore(
  'the metrics listener',
  {
    env: {
      STRATUM_METRICS_PORT: '0',
      // The API on another loopback address, so the metrics listener's own default shows.
      HOST: '127.0.0.2',
      STRATUM_MAX_CONNECTIONS: '30',
      STRATUM_HEADERS_TIMEOUT_MS: '3000',
      STRATUM_REQUEST_TIMEOUT_MS: '3000',
    },
  },
  (context) => {
    it("listens on loopback, holds at most 10 connections, cuts unfinished headers with the API's timeout, and takes its 10 out of STRATUM_MAX_CONNECTIONS", async () => {
      const metrics = metricsUrl(context.server);
      assert.match(context.server.url, /^http:\/\/127\.0\.0\.2:/);
      assert.match(metrics, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/, 'the metrics listener took the API host');

      // The API's share of the 30: what the metrics listener leaves.
      const onApi = await holdMany(context.server.url, 30);
      await eventually('the API to refuse the connections beyond its 20', () =>
        assert.ok(refusedAtAccept(onApi) >= 10, `${refusedAtAccept(onApi)} refused`),
      );
      assert.equal((await getOnce(metrics)).status, 200, 'a full API took the metrics listener with it');
      for (const held of onApi) held.socket.destroy();

      const onMetrics = await holdMany(metrics, 15);
      await eventually('the metrics listener to refuse the connections beyond its 10', () =>
        assert.ok(refusedAtAccept(onMetrics) >= 5, `${refusedAtAccept(onMetrics)} refused`),
      );
      assert.equal((await getOnce(`${context.server.url}/healthz`)).status, 200);
      const kept = onMetrics.filter((h) => h.received !== '' || !h.closed);
      await eventually(
        'the headers timeout to end every connection the metrics listener kept',
        () =>
          assert.ok(
            kept.every((h) => h.closed && h.received.startsWith('HTTP/1.1 408')),
            kept.map((h) => h.received).join('|'),
          ),
        { timeoutMs: 15_000 },
      );
      assert.equal((await getOnce(metrics)).status, 200);
    });
  },
);

describe('metrics listener settings', () => {
  it('binds loopback unless STRATUM_METRICS_HOST says otherwise, and refuses a STRATUM_MAX_CONNECTIONS that leaves the API nothing', () => {
    const config = loadConfig({ HOST: '0.0.0.0', STRATUM_METRICS_PORT: '9464' });
    assert.deepEqual(config.metrics, { host: '127.0.0.1', port: 9464, maxConnections: 10 });
    assert.equal(config.connections.maxConnections, 490);
    assert.equal(loadConfig({ STRATUM_METRICS_PORT: '9464', STRATUM_METRICS_HOST: '0.0.0.0' }).metrics?.host, '0.0.0.0');
    assert.equal(loadConfig({}).connections.maxConnections, 500);
    assert.throws(
      () => loadConfig({ STRATUM_METRICS_PORT: '9464', STRATUM_MAX_CONNECTIONS: '10' }),
      (error: unknown) => error instanceof ConfigError && /^STRATUM_MAX_CONNECTIONS must be more than 10/.test(error.problems.join()),
    );
  });
});

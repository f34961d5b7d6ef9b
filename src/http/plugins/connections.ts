import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerOptions } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { ConnectionLimits } from '../../config.js';
import { ApiError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { ArrivalStep } from './arrival.js';

/** How often a warning about refused connections may be logged, so an attack does not flood the log. */
const refusalWarningIntervalMs = 10_000;

/**
 * The server options that bound how long a client may take. Fastify sets the request, keep-alive
 * and idle timeouts on the server it creates; the headers timeout and the sweep interval go to
 * Node's server as it is created. Node enforces the request and headers timeouts only when it
 * sweeps its connections, every 30 s unless told otherwise, which would let a 10 s limit run to
 * 40 s: the sweep runs at a tenth of the shorter limit, at least every second.
 */
export function serverTimeouts(limits: ConnectionLimits): {
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionTimeout: number;
  http: ServerOptions;
} {
  const sweepMs = Math.min(1000, Math.max(50, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 10)));
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: limits.connectionTimeoutMs,
    http: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: sweepMs },
  };
}

/** A server of Node's own (the metrics listener) with the timeouts Fastify gives the API's. */
export function limitedServer(limits: ConnectionLimits, handle: RequestListener): Server {
  const { requestTimeout, keepAliveTimeout, connectionTimeout, http } = serverTimeouts(limits);
  const server = createServer({ ...http, requestTimeout, keepAliveTimeout }, handle);
  // As Fastify does with its connectionTimeout: an idle socket is destroyed.
  server.setTimeout(connectionTimeout);
  return server;
}

/**
 * Caps the connections a listener holds at once, so that clients holding connections exhaust a
 * slot count rather than the process's file descriptors (which the database and the log need
 * too). Node closes a connection over the cap as soon as it accepts it; a warning naming the
 * listener says so, at most every ten seconds.
 */
export function capConnections(server: Server, maxConnections: number, log: Logger, listener: 'api' | 'metrics'): void {
  server.maxConnections = maxConnections;
  let refused = 0;
  let warnedAt = 0;
  server.on('drop', () => {
    refused++;
    const now = Date.now();
    if (now - warnedAt < refusalWarningIntervalMs) return;
    log.warn({ listener, maxConnections, refused }, 'connection limit reached: refusing new connections');
    warnedAt = now;
    refused = 0;
  });
}

/**
 * An answer sent before the request's body was read (the 401 of authentication, which runs before
 * the body is read; a 413 or 415 decided on the headers alone) closes the connection. Otherwise
 * Node keeps reading the unread body to reuse the connection, and a client that trickles it, or
 * declares a huge one, holds the connection for as long as it likes. Node's own keep-alive flag
 * says so: cleared on arrival of a request with a body, restored once the body has been read.
 */
export const closeUnlessBodyRead: ArrivalStep = (request, reply) => {
  const { raw } = request;
  if (raw.complete || !hasBody(raw)) return undefined;
  const response = reply.raw;
  const keepAlive = response.shouldKeepAlive;
  response.shouldKeepAlive = false;
  raw.once('end', () => (response.shouldKeepAlive = keepAlive));
  return undefined;
};

function hasBody(request: IncomingMessage): boolean {
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
}

/**
 * While the server stops, a request still arriving on an open connection (pipelined behind one in
 * progress) is answered 503 with an error document, where Fastify's own answer would not be one;
 * Fastify adds `Connection: close`. Create the server with `return503OnClosing: false`.
 */
export function refuseWhileClosing(app: FastifyInstance): ArrivalStep {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  return () =>
    closing ? new ApiError(503, { code: 'shutting_down', detail: 'The server is stopping; send the request again.' }) : undefined;
}

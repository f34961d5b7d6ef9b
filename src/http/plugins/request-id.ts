import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { ArrivalStep } from './arrival.js';

/**
 * What a caller's X-Request-Id may be for the service to adopt it: short, printable, no spaces or
 * quotes, so it can go into a log line and a header as is. Anything else is replaced.
 */
const sane = /^[A-Za-z0-9][A-Za-z0-9._:/+=@~-]{0,127}$/;

/**
 * Fastify's `genReqId`: the id a proxy or client sent in X-Request-Id, which ties this service's
 * log lines to theirs, or a new one.
 */
export function requestIdOf(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && sane.test(sent) ? sent : randomUUID();
}

/** Every answer carries its request's id, so a caller can quote it when reporting a problem. */
export const stampRequestId: ArrivalStep = (request, reply) => {
  reply.header('x-request-id', request.id);
  return undefined;
};

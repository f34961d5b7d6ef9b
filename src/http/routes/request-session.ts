import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Engine, Provenance, Session, Transport } from '../../engine/index.js';
import type { Caller } from '../../auth/caller.js';
import { requireCaller } from '../plugins/authentication.js';

/**
 * The authenticated caller's session for one request, closed when the response closes: sent, or
 * abandoned by the client (the session then refuses further work), its records no longer count
 * against the memory of answers.
 */
export function sessionOf(engine: Engine, request: FastifyRequest, reply: FastifyReply, transport: Transport = 'jsonapi'): Session {
  const session = engine.open(requireCaller(request), requestProvenance(request, transport));
  reply.raw.once('close', () => {
    session.close();
  });
  return session;
}

/**
 * Where a request's changes come from, as the audit trail records it: its id, and the client's
 * address as Fastify reads it (through X-Forwarded-For only from a proxy STRATUM_TRUST_PROXY trusts).
 */
export function requestProvenance(request: FastifyRequest, transport: Transport): Provenance {
  return { transport, requestId: request.id, clientAddress: request.ip };
}

/** Who a request's work beyond the records (a notification it sends) is recorded as done by, and where it came from. */
export function requestActor(request: FastifyRequest, transport: Transport = 'jsonapi'): { caller: Caller; provenance: Provenance } {
  return { caller: requireCaller(request), provenance: requestProvenance(request, transport) };
}

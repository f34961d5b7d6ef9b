import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Engine, Session } from '../../engine/index.js';
import { requireCaller } from '../plugins/authentication.js';

/**
 * The authenticated caller's session for one request, closed when the response closes: sent, or
 * abandoned by the client (the session then refuses further work), its records no longer count
 * against the memory of answers.
 */
export function sessionOf(engine: Engine, request: FastifyRequest, reply: FastifyReply): Session {
  const session = engine.open(requireCaller(request));
  reply.raw.once('close', () => {
    session.close();
  });
  return session;
}

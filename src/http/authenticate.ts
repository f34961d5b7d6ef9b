import type { FastifyRequest } from 'fastify';
import type { Caller } from '../auth/caller.js';
import { InvalidTokenError, type TokenSigner } from '../auth/tokens.js';
import { unauthorized } from '../jsonapi/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | undefined;
  }
}

/**
 * An onRequest hook that identifies the caller from `Authorization: Bearer <token>` before any body
 * is read, so an anonymous request never costs a parse.
 */
export function authenticate(signer: TokenSigner) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') throw unauthorized('A bearer token is required.', false);
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match?.[1] === undefined) throw unauthorized('The Authorization header must be "Bearer <token>".', true);
    try {
      request.caller = await signer.verify(match[1]);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw unauthorized(error.message, true);
      throw error;
    }
  };
}

export function requireCaller(request: FastifyRequest): Caller {
  if (request.caller === undefined) throw unauthorized('A bearer token is required.', false);
  return request.caller;
}

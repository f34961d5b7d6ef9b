import type { FastifyRequest } from 'fastify';
import type { Authenticator } from '../auth/authenticator.js';
import type { Caller } from '../auth/caller.js';
import { IdentityProviderUnavailableError } from '../auth/oidc.js';
import { InvalidTokenError } from '../auth/tokens.js';
import { ApiError, unauthorized } from '../jsonapi/errors.js';
import type { Logger } from '../log.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | undefined;
  }
}

/**
 * An onRequest hook that identifies the caller from `Authorization: Bearer <token>` before any body
 * is read, so an anonymous request never costs a parse.
 */
export function authenticate(authenticator: Authenticator, log: Logger) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') throw unauthorized('A bearer token is required.', false);
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match?.[1] === undefined) throw unauthorized('The Authorization header must be "Bearer <token>".', true);
    try {
      request.caller = await authenticator.authenticate(match[1]);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw unauthorized(error.message, true);
      if (error instanceof IdentityProviderUnavailableError) {
        log.warn({ reason: error.message }, 'identity provider unavailable');
        throw new ApiError(503, { code: 'identity_provider_unavailable', detail: 'The identity provider could not be reached to verify the token; retry shortly.' });
      }
      throw error;
    }
  };
}

export function requireCaller(request: FastifyRequest): Caller {
  if (request.caller === undefined) throw unauthorized('A bearer token is required.', false);
  return request.caller;
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Authenticator } from '../auth/authenticator.js';
import type { Caller } from '../auth/caller.js';
import { IdentityProviderUnavailableError } from '../auth/oidc.js';
import { InvalidTokenError } from '../auth/tokens.js';
import { ApiError, unauthorized } from '../errors.js';
import type { Logger } from '../log.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | undefined;
  }
}

/**
 * Identifies the caller of every route in its scope from `Authorization: Bearer <token>`, before
 * any body is read, so an anonymous request never costs a parse.
 */
export const authentication = fp(
  (api: FastifyInstance, { authenticator, log }: { authenticator: Authenticator; log: Logger }) => {
    api.decorateRequest('caller', undefined);
    api.addHook('onRequest', async (request: FastifyRequest): Promise<void> => {
      const header = request.headers.authorization;
      if (header === undefined || header.trim() === '') throw unauthorized('A bearer token is required.', false);
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (match?.[1] === undefined) throw unauthorized('The Authorization header must be "Bearer <token>".', true);
      try {
        request.caller = await authenticator.authenticate(match[1], { reqId: request.id });
      } catch (error) {
        if (error instanceof InvalidTokenError) throw unauthorized(error.message, true);
        if (error instanceof IdentityProviderUnavailableError) {
          log.warn({ reqId: request.id, reason: error.message }, 'identity provider unavailable');
          throw new ApiError(503, {
            code: 'identity_provider_unavailable',
            detail: 'The identity provider could not be reached to verify the token; retry shortly.',
          });
        }
        throw error;
      }
    });
  },
  { name: 'authentication', dependencies: ['error-rendering'] },
);

/** The caller the authentication hook identified. */
export function requireCaller(request: FastifyRequest): Caller {
  if (request.caller === undefined) throw unauthorized('A bearer token is required.', false);
  return request.caller;
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Authenticator } from '../../auth/authenticator.js';
import type { Caller } from '../../auth/caller.js';
import { presentedToken } from '../../auth/credentials.js';
import { IdentityProviderUnavailableError } from '../../auth/oidc.js';
import { InvalidTokenError } from '../../auth/tokens.js';
import { ApiError, unauthorized } from '../../errors.js';
import type { Logger } from '../../log.js';

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
    // What a failed verification answers; a provider out of reach is also worth a warning.
    const refusal = (error: unknown, request: FastifyRequest): Error => {
      if (error instanceof InvalidTokenError) return unauthorized(error.message, true);
      if (error instanceof IdentityProviderUnavailableError) {
        log.warn({ reqId: request.id, reason: error.message }, 'identity provider unavailable');
        return new ApiError(503, {
          code: 'identity_provider_unavailable',
          detail: 'The identity provider could not be reached to verify the token; retry shortly.',
        });
      }
      return error instanceof Error ? error : new Error(String(error));
    };
    // A callback hook rather than an async one: most requests carry a token verified moments ago,
    // whose caller the authenticator gives at once.
    api.addHook('onRequest', (request, _reply, done) => {
      const token = presentedToken(request.headers.authorization, { basic: false });
      if (typeof token !== 'string') {
        done(unauthorized(token.detail, !token.missing));
        return;
      }
      const caller = authenticator.authenticate(token, { reqId: request.id });
      if (!(caller instanceof Promise)) {
        request.caller = caller;
        done();
        return;
      }
      caller.then(
        (verified) => {
          request.caller = verified;
          done();
        },
        (error: unknown) => done(refusal(error, request)),
      );
    });
  },
  { name: 'authentication', dependencies: ['error-rendering'] },
);

/** The caller the authentication hook identified. */
export function requireCaller(request: FastifyRequest): Caller {
  if (request.caller === undefined) throw unauthorized('A bearer token is required.', false);
  return request.caller;
}

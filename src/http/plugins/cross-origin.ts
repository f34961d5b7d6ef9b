import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** How long a browser may reuse a preflight answer, in seconds: short, so a changed setting arrives soon. */
const preflightMaxAgeSeconds = 600;
/**
 * The headers of an answer a page may read: the UI reads tags, new records' addresses, 401
 * challenges, when to retry, and where a module version's zip is (its module page).
 */
const exposedHeaders = ['ETag', 'Location', 'WWW-Authenticate', 'Retry-After', 'X-Terraform-Get'];

/** The CORS headers of an answer to a request from `origin` (its Origin header, if it sent one). */
export type CrossOriginHeaders = (origin: string | undefined) => Record<string, string>;

/**
 * The headers @fastify/cors gives a routed answer, for the answers it never sees: errors met
 * before routing (a malformed URL, malformed framing, 408, 431). Without them a browser hides the
 * error from the page that made the request.
 */
export function crossOriginHeaders(origins: readonly string[]): CrossOriginHeaders {
  if (origins.length === 0) return () => ({});
  const allowed = new Set(origins);
  return (origin): Record<string, string> => {
    // Answers differ by origin once origins are configured, allowed or not.
    if (origin === undefined || !allowed.has(origin)) return { vary: 'Origin' };
    return {
      vary: 'Origin',
      'access-control-allow-origin': origin,
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': exposedHeaders.join(', '),
    };
  };
}

/**
 * Cross-origin requests from the configured origins (STRATUM_CORS_ORIGINS), as browsers make them
 * when the web UI and the API live on different hosts, Terrakube's usual deployment. Registered
 * before authentication, on the whole server: a preflight carries no token, and every answer to an
 * allowed origin, a 401 included, must carry the headers or the page cannot read it (a 401 is how
 * the UI learns to sign in again). A request from any other origin, or without one, gets no CORS
 * header at all, and its preflight the 405 of a method the path does not answer (404 on an unknown path).
 */
export const crossOrigin = fp(
  async (app: FastifyInstance, { origins }: { origins: readonly string[] }) => {
    const allowed = new Set(origins);
    await app.register(cors, {
      origin: (origin, callback) => {
        callback(null, origin !== undefined && allowed.has(origin));
      },
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'Cache-Control', 'If-Match', 'If-None-Match'],
      exposedHeaders,
      // The UI may send cookies (REACT_APP_TERRAKUBE_SEND_COOKIES) when a proxy in front needs them.
      credentials: true,
      maxAge: preflightMaxAgeSeconds,
      // An OPTIONS request from an allowed origin without Access-Control-Request-Method would
      // otherwise get a plain-text 400, the one answer of the service that is not an error document.
      strictPreflight: false,
    });
  },
  { name: 'cross-origin' },
);

import fs from 'node:fs';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { ApiTokens } from './auth/api-tokens.js';
import { Authenticator } from './auth/authenticator.js';
import { OidcVerifier } from './auth/oidc.js';
import { TokenSigner } from './auth/tokens.js';
import { registerRoutes, routesOf } from './engine/routes.js';
import { authenticate } from './http/authenticate.js';
import { errorHandler } from './http/error-handler.js';
import { openApiDocument } from './http/openapi.js';
import { sendDocument } from './http/send-document.js';
import { registerTokenRoutes, tokenOpenApiPaths } from './http/token-routes.js';
import { ApiError, badRequest } from './jsonapi/errors.js';
import type { Logger } from './log.js';
import { resources } from './resources/index.js';
import type { SecretCipher } from './secrets/cipher.js';
import type { Store } from './store/database.js';

export interface AppDependencies {
  config: Config;
  store: Store;
  signingKey: string;
  cipher: SecretCipher;
  log: Logger;
}

const maxBodyBytes = 1024 * 1024;

/** Assembles the HTTP service: parsing, errors, health, authentication, then the resources. */
export function buildApp({ config, store, signingKey, cipher, log }: AppDependencies): FastifyInstance {
  const renderError = errorHandler(log);
  const app = Fastify({
    logger: false,
    bodyLimit: maxBodyBytes,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    return503OnClosing: true,
    // Errors raised before routing (a path with bad percent-encoding) get the same rendering as any other.
    frameworkErrors: (error, request, reply) => {
      void renderError(error, request, reply);
    },
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/vnd.api+json', 'application/json'], { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    // A DELETE or GET that carries a Content-Type and no body is fine; an empty write is caught later.
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      // The parser's message quotes the text around the fault, which may be a secret value: keep only the position.
      const position = error instanceof Error ? /position (\d+)/.exec(error.message)?.[1] : undefined;
      done(badRequest('malformed_json', `The request body is not valid JSON${position === undefined ? '' : ` (at position ${position})`}.`));
    }
  });

  app.setErrorHandler(renderError);
  app.setNotFoundHandler((request, reply) => {
    const error = new ApiError(404, { code: 'not_found', detail: `No endpoint ${request.method} ${request.url.split('?')[0] ?? ''}.` });
    void sendDocument(reply, 404, error.toDocument());
  });

  app.addHook('onResponse', (request, reply, done) => {
    log.info({
      method: request.method,
      path: request.url.split('?')[0],
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
    });
    done();
  });

  app.get('/healthz', (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await store.ping();
      return await reply.send({ status: 'ok' });
    } catch {
      return reply.code(503).send({ status: 'unavailable', detail: 'the database is not reachable' });
    }
  });

  // The API description is public, like the health checks: generated once from the declarations.
  const routes = routesOf(resources, store, cipher);
  const openApi = openApiDocument(resources, routes, packageVersion(), tokenOpenApiPaths());
  app.get('/api/openapi.json', (_request, reply) => reply.send(openApi));
  void app.register(swagger, { mode: 'static', specification: { document: openApi as never } });
  void app.register(swaggerUi, { routePrefix: '/api/docs' });

  const signer = new TokenSigner(signingKey, config.adminGroup);
  const apiTokens = new ApiTokens(store.db, signer);
  const oidc = config.oidc === undefined ? undefined : new OidcVerifier(config.oidc, config.adminGroup);
  void app.register((api, _options, done) => {
    api.decorateRequest('caller', undefined);
    api.addHook('onRequest', authenticate(new Authenticator(signer, apiTokens, oidc), log));
    registerRoutes(api, routes);
    registerTokenRoutes(api, { apiTokens, store, resources });
    done();
  });
  return app;
}

function packageVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return manifest.version ?? '0.0.0';
}

import Fastify, { type FastifyInstance } from 'fastify';
import type { Core } from './core.js';
import { Authenticator } from './auth/authenticator.js';
import { OidcVerifier } from './auth/oidc.js';
import type { Config } from './config.js';
import { adminTokenRoutes } from './http/routes/admin-token-routes.js';
import { arrival } from './http/plugins/arrival.js';
import { AllowedMethods } from './http/plugins/allowed-methods.js';
import { atomicOperationsDescription } from './http/description/atomic-description.js';
import { atomicRoute } from './http/routes/atomic-route.js';
import { authentication } from './http/plugins/authentication.js';
import { bodyParsing } from './http/plugins/body-parsing.js';
import { ClientErrorAnswers } from './http/plugins/client-errors.js';
import { capConnections, closeUnlessBodyRead, refuseWhileClosing, serverTimeouts } from './http/plugins/connections.js';
import { crossOrigin, crossOriginHeaders } from './http/plugins/cross-origin.js';
import { registerDescribedRoutes } from './http/routes/described-route.js';
import { docs } from './http/routes/docs.js';
import { errorRendering, renderError } from './http/plugins/error-rendering.js';
import { graphqlRoute } from './http/routes/graphql-route.js';
import { health, type ServiceState } from './http/routes/health.js';
import type { Metrics } from './http/metrics.js';
import { requestMetrics } from './http/plugins/request-metrics.js';
import { releaseRoutes } from './http/routes/release-routes.js';
import { discoveryRoute, publicRegistryRoute } from './http/routes/registry-discovery.js';
import { ModuleLinks } from './http/routes/module-links.js';
import { registryRoutes } from './http/routes/registry-routes.js';
import { openApiDocument } from './http/description/openapi.js';
import { withGuide } from './http/description/openapi-guide.js';
import { requestIdOf, stampRequestId } from './http/plugins/request-id.js';
import { logRequest, requestLog } from './http/plugins/request-log.js';
import { resourceRoutes } from './http/routes/resource-routes.js';
import { serviceIndex } from './http/routes/service-index.js';
import { tokenRoutes } from './http/routes/token-routes.js';
import { lockMethods, stateRoutes } from './http/routes/state-routes.js';
import { notificationRoutes } from './http/routes/notification-routes.js';
import { subscriptions } from './http/routes/subscriptions.js';
import { CallerConnections } from './http/caller-connections.js';
import { rateLimit } from './http/plugins/rate-limit.js';
import { runOutputRoutes } from './http/routes/run-output-routes.js';
import { effectiveVariablesField, effectiveVariablesRoute } from './http/routes/effective-variables-route.js';
import { agentRunner, buildJobs, effectiveVariablesReader, jobLiveness } from './runs/index.js';
import { runnerRoutes } from './http/routes/runner-routes.js';
import { listenerUrl } from './http/listener-url.js';
import type { AddressInfo } from 'node:net';
import { refuseNulInUrl } from './http/plugins/url-check.js';
import { AtomicOperations } from './jsonapi/atomic.js';
import { routesOf } from './jsonapi/routes.js';
import type { Logger } from './log.js';
import { atomicExample, resourceExamples } from './resources/examples.js';
import {
  liveChannelRecords,
  notificationRecords,
  permissionScopes,
  registry,
  registryRecords,
  runOutputRecords,
  runRecords,
  stateRecords,
  unmodeledRecords,
} from './resources/index.js';
import type { Store } from './store/database.js';
import { packageVersion } from './version.js';

export interface AppDependencies {
  config: Config;
  store: Store;
  /** Signs the module download links. */
  signingKey: string;
  /** The engine and what hears its writes, shared with the executor that runs this process's jobs. */
  core: Core;
  log: Logger;
  /** Whether the process stops and runs jobs, for the health checks. */
  service: ServiceState;
  /** Prometheus metrics to count requests into; undefined when they are not served. */
  metrics?: Metrics | undefined;
}

const maxBodyBytes = 1024 * 1024;

/**
 * Assembles the HTTP service: a server whose timeouts and connection cap keep slow clients from
 * holding it, and whose errors before routing (malformed framing, 408, 431) are JSON:API error
 * documents; then plugins in a fixed order: cross-origin headers and preflights (when origins are
 * configured), body parsing, error rendering, the arrival steps (the request id on every answer,
 * closing connections whose body was not read, refusing requests while the server stops or whose
 * URL holds a NUL), request log and health checks; then, behind authentication, the
 * resource routes, GraphQL and the token routes (with their administration); then the public API
 * description. Jobs are not run here: the executor beside it (commands/serve.ts) shares its core.
 */
export function buildApp({ config, store, signingKey, core, log, metrics, service }: AppDependencies): FastifyInstance {
  const render = renderError(log);
  const corsHeaders = crossOriginHeaders(config.corsOrigins);
  const clientErrors = new ClientErrorAnswers(config.connections, log, corsHeaders);
  const app = Fastify({
    logger: false,
    ...serverTimeouts(config.connections),
    clientErrorHandler: clientErrors.handle,
    bodyLimit: maxBodyBytes,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    // Requests arriving while the server stops get refuseWhileClosing's error document instead of
    // Fastify's own 503 body.
    return503OnClosing: false,
    // The caller's X-Request-Id when it sent a sane one, else a new id.
    genReqId: requestIdOf,
    // request.ip, which logs and the audit trail record, is read from X-Forwarded-For only as far as this trusts.
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    // Schemas (the token endpoints') reject what they do not declare rather than drop it, and
    // never turn one JSON type into another; `verbose` lets an error say what a field takes.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allowUnionTypes: true, verbose: true } },
    // Errors raised before routing (a path with bad percent-encoding) get the same rendering as any other.
    frameworkErrors: (error, request, reply) => {
      reply.raw.once('finish', () => logRequest(log, request, reply));
      // Before routing, so @fastify/cors never saw the request.
      void render(error, request, reply.headers(corsHeaders(request.headers.origin)));
    },
  });
  // Terraform's http backend locks with LOCK and UNLOCK, which carry lock info in their bodies.
  for (const method of lockMethods) app.addHttpMethod(method, { hasBody: true });
  // Before any route is added: a known path asked with another method is then a 405, not a 404.
  const allowedMethods = new AllowedMethods();
  app.addHook('onRoute', (route) => {
    allowedMethods.add(route.method, route.url);
  });
  clientErrors.watch(app.server);
  capConnections(app.server, config.connections.maxConnections, log, 'api');

  const routes = routesOf(registry);
  const callerConnections = new CallerConnections(config.connections.perCaller);
  const { engine, signer, apiTokens, jobEvents, notifier } = core;
  const oidc =
    config.oidc === undefined
      ? undefined
      : new OidcVerifier(config.oidc, config.adminGroup, (message) => log.warn({ issuer: config.oidc?.issuer }, message));
  const authenticator = new Authenticator(signer, apiTokens, oidc);
  const effectiveVariables = effectiveVariablesReader(engine, runRecords);
  const tokenEndpoints = [
    ...tokenRoutes(engine, permissionScopes),
    ...adminTokenRoutes(engine),
    ...notificationRoutes(engine, notifier, notificationRecords, config.outbound.uiUrl),
    effectiveVariablesRoute(engine, runRecords, effectiveVariables),
  ];
  const releaseEndpoints = releaseRoutes(config.releases, log);
  const registryEndpoints = registryRoutes(engine, registryRecords, new ModuleLinks(signingKey, config.moduleLinkSeconds));

  if (config.corsOrigins.length > 0) void app.register(crossOrigin, { origins: config.corsOrigins });
  void app.register(bodyParsing);
  void app.register(errorRendering, { log, allowedMethods: (path: string) => allowedMethods.of(path) });
  void app.register(arrival, { steps: [stampRequestId, closeUnlessBodyRead, refuseWhileClosing(app), refuseNulInUrl] });
  void app.register(requestLog, { log });
  if (metrics !== undefined) void app.register(requestMetrics, { metrics });
  void app.register(health, { store, service });
  void app.register(rateLimit, config.rateLimits);
  // Public, as in Terrakube: the vendors' release lists the workspace pages offer. A module's zip
  // takes no token either, but a signed link.
  void app.register((api) => {
    registerDescribedRoutes(api, [...releaseEndpoints, discoveryRoute, ...registryEndpoints.filter((route) => route.public === true)]);
    return Promise.resolve();
  });
  void app.register(async (api) => {
    await api.register(authentication, { authenticator, log });
    await api.register(resourceRoutes, { engine, routes });
    await api.register(atomicRoute, { engine, atomic: new AtomicOperations(registry, routes) });
    await api.register(graphqlRoute, {
      engine,
      unmodeled: unmodeledRecords,
      derived: [effectiveVariablesField(runRecords.workspace.type, effectiveVariables)],
      log,
    });
    await api.register(runOutputRoutes, { engine, records: runOutputRecords, connections: callerConnections, authenticator });
    registerDescribedRoutes(api, tokenEndpoints);
    // Not in the API description: it exists only to say that it is not offered.
    registerDescribedRoutes(api, [...registryEndpoints.filter((route) => route.public !== true), publicRegistryRoute]);
  });
  // Authenticated by the token its client sends once connected, not by a header of the upgrade request.
  void app.register(subscriptions, {
    engine,
    authenticator,
    events: jobEvents,
    records: liveChannelRecords,
    connections: callerConnections,
  });
  // Terraform's http backend authenticates with Basic auth, so these routes identify their callers themselves.
  void app.register(stateRoutes, {
    engine,
    authenticator,
    records: stateRecords,
    settings: config.state,
    jobRuns: jobLiveness(engine, runRecords),
  });
  // Agents take jobs here with their own tokens, as the in-process executor does through the port.
  const jobs = buildJobs(
    { engine, records: { run: runRecords, state: stateRecords }, config, signer },
    () => config.state.publicUrl ?? listenerUrl(app.server.address() as AddressInfo, '127.0.0.1'),
  );
  void app.register(runnerRoutes, {
    agents: agentRunner(jobs, engine.work('executor'), runRecords),
    stateMaxBytes: config.state.maxBytes,
    logCharacters: config.runs.logCharacters,
  });
  const version = packageVersion();
  const description = openApiDocument(
    registry,
    routes,
    version,
    [...tokenEndpoints, ...releaseEndpoints, discoveryRoute, ...registryEndpoints],
    [atomicOperationsDescription(registry)],
  );
  void app.register(docs, {
    document: withGuide(description, {
      registry,
      routes,
      attributes: resourceExamples,
      atomic: atomicExample,
      adminGroup: config.adminGroup,
    }),
  });
  void app.register(serviceIndex, { version, adminGroup: config.adminGroup });
  return app;
}

/** A hop count as Fastify takes it at run time (its types leave the number out): the nearest `hops` proxies are trusted. */
const trustHops =
  (hops: number) =>
  (_address: string, hop: number): boolean =>
    hop < hops;

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Metrics } from '../metrics.js';

/** Counts every answered request into the metrics, the errors of GraphQL answers, and the requests not answered yet. */
export const requestMetrics = fp(
  (app: FastifyInstance, { metrics }: { metrics: Metrics }) => {
    app.addHook('onRequest', (_request, reply, done) => {
      metrics.inFlight.inc();
      // 'close' comes once for every response, also one cut short by the client or a stop.
      reply.raw.once('close', () => metrics.inFlight.dec());
      done();
    });
    app.addHook('onResponse', (request, reply, done) => {
      metrics.observe(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
      if (request.graphqlErrors !== undefined) metrics.countGraphQLErrors(request.graphqlErrors);
      done();
    });
  },
  // The request log declares what a request notes of its GraphQL errors.
  { name: 'request-metrics', dependencies: ['request-log'] },
);

import type { FastifyInstance } from 'fastify';
/** Liveness and readiness, without a token: the process answers, and the database does (`ping`). */
export function health(app: FastifyInstance, { store }: { store: { ping(): Promise<void> } }): Promise<void> {
  app.get('/healthz', (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await store.ping();
      return await reply.send({ status: 'ok' });
    } catch {
      return reply.code(503).send({ status: 'unavailable', detail: 'the database is not reachable' });
    }
  });
  return Promise.resolve();
}

import type { FastifyInstance } from 'fastify';

/** Whether this process runs jobs, as its listening line and `/readyz` tell an operator. */
export type RunsReport = { jobs: 'on'; executor: string; concurrent: number } | { jobs: 'off'; detail: string } | { jobs: 'starting' };

/** What the health checks say of the process beside its database: whether it stops, and whether it runs jobs. */
export class ServiceState {
  /** Set when a stop begins: the API still answers the runs being interrupted, but takes no new traffic. */
  stopping = false;
  runs: RunsReport = { jobs: 'starting' };
}

/**
 * Liveness and readiness, without a token: the process answers; the database does (`ping`) and the
 * process is not stopping. A stopping process answers 503 so that load balancers send it nothing
 * new while its runs save their state through it.
 */
export function health(
  app: FastifyInstance,
  { store, service }: { store: { ping(): Promise<void> }; service: ServiceState },
): Promise<void> {
  app.get('/healthz', (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    if (service.stopping) return reply.code(503).send({ status: 'stopping', detail: 'the service is stopping', runs: service.runs });
    try {
      await store.ping();
      return await reply.send({ status: 'ok', runs: service.runs });
    } catch {
      return reply.code(503).send({ status: 'unavailable', detail: 'the database is not reachable', runs: service.runs });
    }
  });
  return Promise.resolve();
}

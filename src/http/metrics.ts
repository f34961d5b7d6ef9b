import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ConnectionLimits, MetricsListener } from '../config.js';
import type { Logger } from '../log.js';
import type { FailureReason, QueueOverview, RunMetrics } from '../runs/index.js';
import { listenerUrl } from './listener-url.js';
import { capConnections, limitedServer } from './plugins/connections.js';

/** What the gauges read of the database: its kind, and how its connections are used. */
export interface DatabaseUse {
  dialect: string;
  poolUse(): { open: number; idle: number; waiting: number; max: number };
}

/** Label of requests no route matched, so that scanners' paths cannot multiply the series. */
const unmatched = 'unmatched';

/** Buckets of run durations: a step takes seconds to hours. */
const runBuckets = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200];

/**
 * The service's Prometheus metrics: requests by route pattern, method and status, their latency,
 * the errors inside GraphQL answers by code, the database connections, the runs of this process's
 * executor (job and step durations, failures by reason) and the store's queue (jobs by status, the
 * oldest pending one's wait, executors alive), and the process's own (CPU, memory and its peak,
 * event loop, garbage collection). A registry of its own, so nothing else registered in the process
 * leaks into the scrape.
 */
export class Metrics implements RunMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  private readonly graphqlErrors: Counter<'code'>;
  /** Requests arrived and not yet answered: what a stop waits for, and a sign of a backlog. */
  readonly inFlight: Gauge;
  private readonly jobDuration: Histogram<'status'>;
  private readonly stepDuration: Histogram<'type' | 'status'>;
  private readonly jobFailures: Counter<'reason'>;

  constructor(store: DatabaseUse) {
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'stratum_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'stratum_http_request_duration_seconds',
      help: 'Time from a request arriving to its answer being sent, by route pattern, method and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.graphqlErrors = new Counter({
      name: 'stratum_graphql_errors_total',
      help: 'Errors in GraphQL answers, by code: a GraphQL answer is 200 whatever failed inside, so the requests counter cannot tell.',
      labelNames: ['code'],
      registers: [this.registry],
    });
    this.inFlight = new Gauge({
      name: 'stratum_http_requests_in_flight',
      help: 'HTTP requests whose headers have arrived and whose answer has not been sent yet.',
      registers: [this.registry],
    });
    const pool = (name: string, help: string, read: (use: ReturnType<DatabaseUse['poolUse']>) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['store'],
        registers: [this.registry],
        collect() {
          this.set({ store: store.dialect }, read(store.poolUse()));
        },
      });
    pool('stratum_database_connections', 'Database connections open (SQLite: its one connection).', (use) => use.open);
    pool('stratum_database_connections_idle', 'Database connections open and idle.', (use) => use.idle);
    pool(
      'stratum_database_connections_max',
      'The most database connections this process opens (STRATUM_DATABASE_POOL_SIZE).',
      (use) => use.max,
    );
    pool('stratum_database_waiting_queries', 'Queries waiting for a free database connection.', (use) => use.waiting);
    this.jobDuration = new Histogram({
      name: 'stratum_job_duration_seconds',
      help: "Time a job ran in this process's executor, from taken to its end (or its wait for an approval), by the status it ended with.",
      labelNames: ['status'],
      buckets: runBuckets,
      registers: [this.registry],
    });
    this.stepDuration = new Histogram({
      name: 'stratum_step_duration_seconds',
      help: "Time a step ran in this process's executor, by its template step type and how it ended.",
      labelNames: ['type', 'status'],
      buckets: runBuckets,
      registers: [this.registry],
    });
    this.jobFailures = new Counter({
      name: 'stratum_job_failures_total',
      help: 'Jobs that failed, by reason: stepFailed (a step of the job failed), interrupted (the service stopped), abandoned (an executor went away), tool, inputs, flow, executor.',
      labelNames: ['reason'],
      registers: [this.registry],
    });
    new Gauge({
      name: 'stratum_process_resident_memory_peak_bytes',
      help: 'The most resident memory the process has held since it started (the kernel high-water mark): a peak between two scrapes shows here.',
      registers: [this.registry],
      collect() {
        // maxRSS is in kibibytes.
        this.set(process.resourceUsage().maxRSS * 1024);
      },
    });
  }

  jobEnded(status: string, reason: FailureReason | undefined, seconds: number): void {
    this.jobDuration.observe({ status }, seconds);
    if (reason !== undefined) this.jobFailures.inc({ reason });
  }

  stepEnded(type: string, status: string, seconds: number): void {
    this.stepDuration.observe({ type, status }, seconds);
  }

  /**
   * Gauges of the store's queue, read at each scrape: the same on every replica, so alert on one
   * replica's value (max), not on their sum.
   */
  watchQueue(read: () => Promise<QueueOverview>): void {
    let reading: Promise<QueueOverview> | undefined;
    // One read serves the three gauges of a scrape.
    const overview = () => {
      reading ??= read().finally(() => setTimeout(() => (reading = undefined), 1000).unref());
      return reading;
    };
    new Gauge({
      name: 'stratum_jobs',
      help: 'Unfinished jobs in the store, by status (pending: waiting for an executor; queue and running: held by one).',
      labelNames: ['status'],
      registers: [this.registry],
      async collect() {
        const { jobs } = await overview();
        for (const [status, count] of Object.entries(jobs)) this.set({ status }, count);
      },
    });
    new Gauge({
      name: 'stratum_jobs_oldest_pending_age_seconds',
      help: 'How long the oldest pending job has waited for an executor (0 when none waits).',
      registers: [this.registry],
      async collect() {
        this.set((await overview()).oldestPendingSeconds);
      },
    });
    new Gauge({
      name: 'stratum_executors_alive',
      help: 'Executors (servers running jobs, and stratum executor processes) that noted themselves alive in the last 30 s.',
      registers: [this.registry],
      async collect() {
        this.set((await overview()).executorsAlive);
      },
    });
  }

  observe(method: string, route: string | undefined, status: number, seconds: number): void {
    const labels = { method, route: route ?? unmatched, status: String(status) };
    this.requests.inc(labels);
    this.duration.observe(labels, seconds);
  }

  /** Counts the errors of one GraphQL answer, one per error; their codes are the API's own, a short fixed list. */
  countGraphQLErrors(codes: readonly string[]): void {
    for (const code of codes) this.graphqlErrors.inc({ code });
  }
}

/**
 * Serves `/metrics` on a listener of its own, apart from the API: a scraper needs no token, and
 * the port can stay inside the cluster while the API's is exposed. Anyone who reaches it may
 * connect, so it has the API's timeouts and a small connection cap of its own: connections held
 * open on it cannot take the descriptors the API accepts with.
 */
export async function serveMetrics(
  metrics: Metrics,
  where: MetricsListener,
  limits: ConnectionLimits,
  log: Logger,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = limitedServer(limits, (request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || request.method !== 'GET') {
      const known = path === '/metrics';
      response.writeHead(known ? 405 : 404, { 'content-type': 'text/plain', ...(known ? { allow: 'GET' } : {}) });
      response.end('Stratum serves its metrics at GET /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': metrics.registry.contentType });
        response.end(text);
      },
      () => {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end('metrics could not be collected\n');
      },
    );
  });
  capConnections(server, where.maxConnections, log, 'metrics');
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(where.port, where.host, () => resolve());
  });
  return {
    url: listenerUrl(server.address() as AddressInfo),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

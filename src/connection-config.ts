import type { IntegerSetting } from './run-config.js';

/** The listener of the Prometheus metrics, apart from the API's. */
export interface MetricsListener {
  host: string;
  port: number;
  /** Connections open at once on it, taken out of STRATUM_MAX_CONNECTIONS. */
  maxConnections: number;
}

/** How long a client may take and how many connections it may hold, so slow clients cannot hold the server. */
export interface ConnectionLimits {
  /** The whole request, headers and body, must arrive within this. */
  requestTimeoutMs: number;
  /** The request line and headers must arrive within this. */
  headersTimeoutMs: number;
  /** An idle connection between two requests is closed after this. */
  keepAliveTimeoutMs: number;
  /** A connection without traffic either way for this long is closed, even during a request. */
  connectionTimeoutMs: number;
  /**
   * Connections open at once on the API's listener, further ones closed as they are accepted:
   * STRATUM_MAX_CONNECTIONS, less what the metrics listener may hold when metrics are served.
   */
  maxConnections: number;
  /** Log streams and live-channel connections one caller may hold at once on a server: far below maxConnections. */
  perCaller: number;
}

/** The connection settings from the environment; problems are added to the list the service refuses to start with. */
export function readConnectionLimits(integer: IntegerSetting, metrics: MetricsListener | undefined, problems: string[]): ConnectionLimits {
  const timeout = (name: string, fallback: number) => integer(name, fallback, 100, 3_600_000);
  const connectionBudget = integer('STRATUM_MAX_CONNECTIONS', 500, 1, 100_000);
  if (metrics !== undefined && connectionBudget <= metrics.maxConnections) {
    problems.push(
      `STRATUM_MAX_CONNECTIONS must be more than ${metrics.maxConnections} with STRATUM_METRICS_PORT set: the metrics listener's ${metrics.maxConnections} connections count in it`,
    );
  }
  const apiConnections = Math.max(1, connectionBudget - (metrics?.maxConnections ?? 0));
  const connections: ConnectionLimits = {
    requestTimeoutMs: timeout('STRATUM_REQUEST_TIMEOUT_MS', 30_000),
    headersTimeoutMs: timeout('STRATUM_HEADERS_TIMEOUT_MS', 10_000),
    keepAliveTimeoutMs: timeout('STRATUM_KEEP_ALIVE_TIMEOUT_MS', 5_000),
    connectionTimeoutMs: timeout('STRATUM_CONNECTION_TIMEOUT_MS', 60_000),
    maxConnections: apiConnections,
    // At most half of what the API may hold: one caller never takes the rest.
    perCaller: integer('STRATUM_LONG_CONNECTIONS_PER_CALLER', 32, 1, Math.max(1, Math.floor(apiConnections / 2))),
  };
  // Node refuses a headers timeout longer than the request timeout, which includes the headers.
  if (connections.headersTimeoutMs > connections.requestTimeoutMs) {
    problems.push(
      `STRATUM_HEADERS_TIMEOUT_MS (${connections.headersTimeoutMs}) must not exceed STRATUM_REQUEST_TIMEOUT_MS (${connections.requestTimeoutMs})`,
    );
  }
  return connections;
}

/** How many requests of each kind one caller may make per minute, on each server; 0: that kind is not limited. */
export interface RateLimits {
  readsPerMinute: number;
  writesPerMinute: number;
}

/** The rate limits from the environment: on by default, far above what the web UI sends (README, "Rate limits"). */
export function readRateLimits(integer: IntegerSetting): RateLimits {
  return {
    readsPerMinute: integer('STRATUM_RATE_LIMIT_READS', 1200, 0, 10_000_000),
    writesPerMinute: integer('STRATUM_RATE_LIMIT_WRITES', 300, 0, 10_000_000),
  };
}

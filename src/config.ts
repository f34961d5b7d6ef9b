import path from 'node:path';
import type { OidcSettings } from './auth/oidc.js';
import { parseEncryptionKey } from './secrets/cipher.js';
import { isAllowEntry } from './outbound/destinations.js';
import { parseOrigins } from './cors-origins.js';
import { readTrustProxy } from './trust-proxy.js';
import { readRunConfig, type RunConfig } from './run-config.js';
import { readConnectionLimits, readRateLimits, type ConnectionLimits, type MetricsListener, type RateLimits } from './connection-config.js';

export type { ConnectionLimits, MetricsListener, RateLimits } from './connection-config.js';

/** Every setting of the service and the CLI, read from the environment and validated once. */
export interface Config {
  port: number;
  host: string;
  /** Folder of the embedded store and of its generated keys. */
  dataDir: string;
  /** PostgreSQL connection string; when absent the embedded SQLite store is used. */
  databaseUrl: string | undefined;
  /** Explicit token signing key; when absent one is generated and kept in the store. */
  tokenKey: string | undefined;
  /** Key that encrypts secret values (32 bytes, hex or base64); required with PostgreSQL. */
  encryptionKey: string | undefined;
  adminGroup: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Size of the PostgreSQL connection pool of one process. */
  databasePoolSize: number;
  /** How long a request waits for a free PostgreSQL connection before it is answered 503. */
  databasePoolWaitMs: number;
  /** The longest one PostgreSQL statement may run before it is cancelled (503). */
  statementTimeoutMs: number;
  /** How often the embedded store gathers its query planner's statistics. */
  sqliteAnalyzeIntervalMs: number;
  /** An OpenID Connect issuer whose tokens are accepted beside the service's own. */
  oidc: OidcSettings | undefined;
  /** The most the records of one answer may hold, and of all answers built at once, in bytes. */
  responseMemory: { perAnswer: number; total: number };
  /** The longest lifetime a new personal access token may ask for, in days; undefined: no maximum. */
  /** The longest lifetime a new token of each kind may ask for, in days; undefined: no maximum. */
  tokenMaxDays: { personal: number | undefined; team: number | undefined };
  /** What a workspace created without `globalRemoteState` gets (STRATUM_WORKSPACE_GLOBAL_REMOTE_STATE). */
  workspaceGlobalRemoteState: boolean;
  /** Browser origins (scheme, host and port) whose pages may call the API; none by default. */
  corsOrigins: readonly string[];
  connections: ConnectionLimits;
  rateLimits: RateLimits;
  /** How long a stopping server lets requests in flight finish before it closes their connections. */
  shutdownTimeoutMs: number;
  /** Where Prometheus metrics are served, on a listener of their own; undefined: not served. */
  metrics: MetricsListener | undefined;
  releases: ReleaseSettings;
  outbound: OutboundSettings;
  /** How long the link to a module version's zip that /download gives serves, in seconds. */
  moduleLinkSeconds: number;
  state: StateSettings;
  runs: RunConfig;
  /** How long the audit trail keeps a change, and how often older ones are pruned. */
  audit: { retentionDays: number; pruneIntervalMs: number };
  /** Whose X-Forwarded-For gives the client address (logs, audit trail), as Fastify's `trustProxy` (trust-proxy.ts). */
  trustProxy: boolean | number | string[];
}

/** Terraform state served by the http backend. */
export interface StateSettings {
  /** The largest state accepted, in bytes. */
  maxBytes: number;
  /** The URL clients reach the API at, for the links of state versions; undefined: the URL each state was written at. */
  publicUrl: string | undefined;
}

/** Where outbound calls (notification deliveries) may go, and how long they may take. */
export interface OutboundSettings {
  /** Host names, addresses and CIDR ranges reachable beside public addresses (loopback and private ones). */
  allow: readonly string[];
  timeoutMs: number;
  /** How many deliveries of each notification configuration are kept. */
  deliveriesKept: number;
  /** Where people open Terrakube's web UI (STRATUM_UI_URL): the links notifications carry to a run's page; none without it. */
  uiUrl: string | undefined;
}

/** Where the version lists of the workspace pages come from, and how long a copy is kept. */
export interface ReleaseSettings {
  /** The vendors' release indexes; undefined: only the list shipped with the package is served. */
  terraformUrl: string | undefined;
  tofuUrl: string | undefined;
  /** How long a fetched index is served before it is fetched again. */
  cacheSeconds: number;
  /** How long a fetch may take before the shipped list (or the last copy) is served instead. */
  timeoutMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Connections the metrics listener holds at once: a scraper keeps one open, so two Prometheus
 * servers and a person with curl fit. They come out of STRATUM_MAX_CONNECTIONS, so that both
 * listeners together stay within the file descriptors that setting is sized to.
 */
const metricsConnections = 10;

/** Reads the configuration, listing every problem at once so an operator fixes them in one go. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const { config, problems } = inspectConfig(env);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * The configuration and every problem with it: a setting with a problem keeps its default, so
 * `stratum check` can go on to report what else it finds.
 */
export function inspectConfig(env: NodeJS.ProcessEnv = process.env): { config: Config; problems: string[] } {
  const problems: string[] = [];

  const integer = <Fallback extends number | undefined>(name: string, fallback: Fallback, min: number, max: number): number | Fallback => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  };
  const trueOrFalse = (name: string, fallback: boolean): boolean => {
    const raw = (env[name] ?? '').trim();
    if (raw === '') return fallback;
    if (raw !== 'true' && raw !== 'false') problems.push(`${name} must be true or false, got "${raw}"`);
    return raw === 'true' || (raw !== 'false' && fallback);
  };

  const databaseUrl = nonEmpty(env.DATABASE_URL);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// connection string');
  }

  const encryptionKey = nonEmpty(env.STRATUM_ENCRYPTION_KEY);
  // Here rather than when the key is first needed, so that the problem is reported before anything
  // touches the database (migrations included).
  if (databaseUrl !== undefined && encryptionKey === undefined) {
    problems.push(
      'STRATUM_ENCRYPTION_KEY is required with DATABASE_URL: secrets are encrypted with a key kept outside the database (make one with `openssl rand -base64 32`)',
    );
  }

  const tokenKey = nonEmpty(env.STRATUM_TOKEN_KEY);
  if (tokenKey !== undefined && Buffer.byteLength(tokenKey) < 32) {
    problems.push('STRATUM_TOKEN_KEY must be at least 32 bytes long (an HS256 key shorter than its hash is weak)');
  }

  if (encryptionKey !== undefined) {
    try {
      parseEncryptionKey(encryptionKey);
    } catch (error) {
      problems.push(`STRATUM_ENCRYPTION_KEY: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  const logLevel = env.STRATUM_LOG_LEVEL ?? 'info';
  if (!(logLevels as readonly string[]).includes(logLevel)) {
    problems.push(`STRATUM_LOG_LEVEL must be one of ${logLevels.join(', ')}, got "${logLevel}"`);
  }

  const adminGroup = env.STRATUM_ADMIN_GROUP ?? 'STRATUM_ADMIN';
  if (adminGroup.trim() === '') problems.push('STRATUM_ADMIN_GROUP must not be empty');

  const issuer = nonEmpty(env.STRATUM_OIDC_ISSUER);
  if (issuer !== undefined && !/^https?:\/\/[^\s]+$/.test(issuer)) problems.push('STRATUM_OIDC_ISSUER must be an http:// or https:// URL');
  const oidc: OidcSettings | undefined =
    issuer === undefined
      ? undefined
      : { issuer, audience: nonEmpty(env.STRATUM_OIDC_AUDIENCE), groupsClaim: nonEmpty(env.STRATUM_OIDC_GROUPS_CLAIM) ?? 'groups' };

  const perAnswerMiB = integer('STRATUM_RESPONSE_MAX_MIB', 32, 1, 4096);
  const totalMiB = integer('STRATUM_RESPONSE_MEMORY_MIB', 128, 1, 65536);
  if (perAnswerMiB > totalMiB) problems.push('STRATUM_RESPONSE_MAX_MIB must not be larger than STRATUM_RESPONSE_MEMORY_MIB');
  const port = integer('PORT', 8080, 0, 65535);
  const host = nonEmpty(env.HOST) ?? '0.0.0.0';
  const metricsPort = integer('STRATUM_METRICS_PORT', undefined, 0, 65535);
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port) {
    problems.push(`STRATUM_METRICS_PORT must differ from PORT (${port}): metrics are served on a listener of their own`);
  }
  // Loopback unless told otherwise: the listener answers anyone without a token.
  const metrics: MetricsListener | undefined =
    metricsPort === undefined
      ? undefined
      : { host: nonEmpty(env.STRATUM_METRICS_HOST) ?? '127.0.0.1', port: metricsPort, maxConnections: metricsConnections };
  const connections = readConnectionLimits(integer, metrics, problems);

  const releaseUrl = (name: string, fallback: string): string | undefined => {
    const raw = nonEmpty(env[name]) ?? fallback;
    if (raw === 'none') return undefined;
    if (!/^https?:\/\/[^\s]+$/.test(raw)) problems.push(`${name} must be an http:// or https:// URL, or none`);
    return raw;
  };
  const releases: ReleaseSettings = {
    terraformUrl: releaseUrl('STRATUM_TERRAFORM_RELEASES_URL', 'https://releases.hashicorp.com/terraform/index.json'),
    tofuUrl: releaseUrl('STRATUM_TOFU_RELEASES_URL', 'https://api.github.com/repos/opentofu/opentofu/releases?per_page=100'),
    cacheSeconds: integer('STRATUM_RELEASES_CACHE_SECONDS', 3600, 1, 604_800),
    timeoutMs: integer('STRATUM_RELEASES_TIMEOUT_MS', 2000, 100, 60_000),
  };
  const corsOrigins = parseOrigins(env.STRATUM_CORS_ORIGINS, problems);
  const allow = (env.STRATUM_OUTBOUND_ALLOW ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of allow)
    if (!isAllowEntry(entry)) problems.push(`STRATUM_OUTBOUND_ALLOW lists host names, addresses and CIDR ranges, got "${entry}"`);
  const baseUrl = (name: string, example: string): string | undefined => {
    const url = nonEmpty(env[name])?.replace(/\/+$/, '');
    if (url !== undefined && !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(url))
      problems.push(`${name} must be an http:// or https:// URL without query, such as ${example}, got "${url}"`);
    return url;
  };
  const outbound: OutboundSettings = {
    allow,
    timeoutMs: integer('STRATUM_OUTBOUND_TIMEOUT_MS', 10_000, 100, 120_000),
    deliveriesKept: integer('STRATUM_NOTIFICATION_DELIVERIES_KEPT', 50, 1, 10_000),
    uiUrl: baseUrl('STRATUM_UI_URL', 'https://terrakube.example.com'),
  };

  const publicUrl = baseUrl('STRATUM_PUBLIC_URL', 'https://stratum.example.com');
  const state: StateSettings = { maxBytes: integer('STRATUM_STATE_MAX_MIB', 16, 1, 1024) * 1024 * 1024, publicUrl };

  const dataDir = path.resolve(nonEmpty(env.STRATUM_DATA_DIR) ?? 'data');
  const config: Config = {
    port,
    host,
    dataDir,
    databaseUrl,
    tokenKey,
    encryptionKey,
    adminGroup,
    logLevel: logLevel as Config['logLevel'],
    databasePoolSize: integer('STRATUM_DATABASE_POOL_SIZE', 10, 1, 1000),
    databasePoolWaitMs: integer('STRATUM_DATABASE_POOL_WAIT_MS', 30000, 100, 3_600_000),
    statementTimeoutMs: integer('STRATUM_STATEMENT_TIMEOUT_MS', 15000, 100, 3_600_000),
    sqliteAnalyzeIntervalMs: integer('STRATUM_SQLITE_ANALYZE_INTERVAL_MS', 12 * 3_600_000, 100, 30 * 86_400_000),
    oidc,
    responseMemory: { perAnswer: perAnswerMiB * 1024 * 1024, total: totalMiB * 1024 * 1024 },
    // A century, as the token endpoints' own limit on any lifetime.
    tokenMaxDays: {
      personal: integer('STRATUM_PERSONAL_TOKEN_MAX_DAYS', undefined, 1, 36500),
      team: integer('STRATUM_TEAM_TOKEN_MAX_DAYS', undefined, 1, 36500),
    },
    workspaceGlobalRemoteState: trueOrFalse('STRATUM_WORKSPACE_GLOBAL_REMOTE_STATE', true),
    corsOrigins,
    connections,
    rateLimits: readRateLimits(integer),
    moduleLinkSeconds: integer('STRATUM_MODULE_LINK_SECONDS', 300, 1, 86_400),
    shutdownTimeoutMs: integer('STRATUM_SHUTDOWN_TIMEOUT_MS', 10_000, 0, 3_600_000),
    metrics,
    releases,
    outbound,
    state,
    runs: readRunConfig(env, dataDir, integer, problems),
    audit: {
      retentionDays: integer('STRATUM_AUDIT_RETENTION_DAYS', 365, 1, 36500),
      pruneIntervalMs: integer('STRATUM_AUDIT_PRUNE_INTERVAL_MS', 3_600_000, 100, 86_400_000),
    },
    trustProxy: readTrustProxy(env.STRATUM_TRUST_PROXY, problems),
  };
  return { config, problems };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

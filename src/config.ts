import path from 'node:path';
import type { OidcSettings } from './auth/oidc.js';
import { parseEncryptionKey } from './secrets/cipher.js';

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
  /** An OpenID Connect issuer whose tokens are accepted beside the service's own. */
  oidc: OidcSettings | undefined;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Reads the configuration, listing every problem at once so an operator fixes them in one go. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  };

  const databaseUrl = nonEmpty(env.DATABASE_URL);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// connection string');
  }

  const tokenKey = nonEmpty(env.STRATUM_TOKEN_KEY);
  if (tokenKey !== undefined && Buffer.byteLength(tokenKey) < 32) {
    problems.push('STRATUM_TOKEN_KEY must be at least 32 bytes long (an HS256 key shorter than its hash is weak)');
  }

  const encryptionKey = nonEmpty(env.STRATUM_ENCRYPTION_KEY);
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

  const config: Config = {
    port: integer('PORT', 8080, 0, 65535),
    host: nonEmpty(env.HOST) ?? '0.0.0.0',
    dataDir: path.resolve(nonEmpty(env.STRATUM_DATA_DIR) ?? 'data'),
    databaseUrl,
    tokenKey,
    encryptionKey,
    adminGroup,
    logLevel: logLevel as Config['logLevel'],
    databasePoolSize: integer('STRATUM_DATABASE_POOL_SIZE', 10, 1, 1000),
    oidc,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

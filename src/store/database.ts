import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../model/index.js';
import { embeddedOpenFailure, MissingStoreError, postgresConnectionFailure } from './connection-failures.js';
import { DataFolderLock, DataFolderLockedError } from './data-folder-lock.js';
import type { Dialect } from './dialect.js';
import { migrateToLatest } from './migrate.js';
import { PreparedStatements } from './prepared-statements.js';
import { WritingSqliteDialect } from './sqlite-dialect.js';
import { withStatementCache } from './sqlite-statements.js';
import { keepStatistics } from './statistics.js';

export type { Database } from '../model/index.js';
export type { Dialect } from './dialect.js';

/** How busy the connections to the database are: PostgreSQL's pool, or SQLite's one connection. */
export interface PoolUse {
  /** Connections open now. */
  open: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
  max: number;
}

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** Throws when the database cannot answer a trivial query. */
  ping(): Promise<void>;
  poolUse(): PoolUse;
  /**
   * Keeps a SQL text, run many times with other values, ready on each connection: named and
   * prepared on PostgreSQL; SQLite's statements are kept prepared already.
   */
  prepare(text: string): void;
  close(): Promise<void>;
}

/**
 * How a process opens the embedded store. `exclusive` takes the data-folder lock that only one
 * process holds (a server, a migration, a key rotation); `shared` writes a few rows beside a running
 * server through SQLite's own locks, and `readonly` reads beside it (the console's token
 * administration, checks and backups). PostgreSQL needs no such distinction.
 */
export interface StoreAccess {
  embedded: 'exclusive' | 'shared' | 'readonly';
  /** Create the data folder and its database when they are missing; otherwise that is an error. */
  create: boolean;
}

/** What the opening of a server's store tells: background work that failed, migrations it applied. */
export interface StoreNotices {
  warn: (message: string) => void;
  migrated: (applied: readonly string[]) => void;
}

/**
 * Opens the configured store, creating it when missing, and brings its schema to the latest
 * migration: the store a server runs on.
 */
export async function openStore(config: Config, notices?: StoreNotices): Promise<Store> {
  const store = await connectStore(config, { embedded: 'exclusive', create: true }, notices?.warn);
  try {
    // Migrated whether or not anyone listens: `notices?.migrated(await ...)` would skip the call,
    // its argument included, when there are no notices (the benchmark's seed opens the store so).
    const applied = await migrateToLatest(store.db, store.dialect);
    notices?.migrated(applied);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/**
 * Opens the configured store without changing its schema, and makes sure the database answers: a
 * failure to reach it is a StoreUnreachableError that says where and what to fix.
 */
export async function connectStore(config: Config, access: StoreAccess, warn: (message: string) => void = () => undefined): Promise<Store> {
  if (config.databaseUrl === undefined) return openEmbedded(config, access, warn);
  const store = await openPostgres(config, config.databaseUrl);
  try {
    await store.ping();
  } catch (error) {
    await store.close();
    throw postgresConnectionFailure(error, config.databaseUrl);
  }
  return store;
}

/** The embedded database file of a data folder. */
export const embeddedDatabaseFile = (dataDir: string) => path.join(dataDir, 'stratum.db');

function openEmbedded({ dataDir, sqliteAnalyzeIntervalMs }: Config, access: StoreAccess, warn: (message: string) => void): Store {
  const file = embeddedDatabaseFile(dataDir);
  if (!access.create && !fs.existsSync(file)) {
    throw new MissingStoreError(
      fs.existsSync(dataDir) ? `the data folder ${dataDir} holds no database (stratum.db)` : `there is no data folder ${dataDir}`,
    );
  }
  let lock: DataFolderLock | undefined;
  let handle: Sqlite.Database;
  try {
    if (access.embedded === 'exclusive') lock = DataFolderLock.acquire(dataDir);
    handle = new Sqlite(file, { readonly: access.embedded === 'readonly', fileMustExist: !access.create });
    if (access.embedded !== 'readonly') {
      // WAL lets readers run beside the writer; FULL fsyncs the log on every commit, so an
      // acknowledged write survives a crash of the process or of the host.
      handle.pragma('journal_mode = WAL');
      handle.pragma('synchronous = FULL');
      handle.pragma('foreign_keys = ON');
    }
    handle.pragma('busy_timeout = 5000');
  } catch (error) {
    lock?.release();
    if (error instanceof DataFolderLockedError) throw error;
    throw embeddedOpenFailure(error, dataDir, 'stratum.db');
  }
  if (access.embedded === 'exclusive') fs.chmodSync(file, 0o600);
  const config = { database: withStatementCache(handle) };
  // A read-only connection cannot take the write lock, and has no write to wait for.
  const dialect = access.embedded === 'readonly' ? new SqliteDialect(config) : new WritingSqliteDialect(config);
  const db = new Kysely<Database>({ dialect });
  // The process that holds the folder keeps the planner's statistics; console commands do not.
  const stopStatistics =
    access.embedded === 'exclusive'
      ? keepStatistics(handle, file, sqliteAnalyzeIntervalMs, (message) => warn(`gathering the planner's statistics failed: ${message}`))
      : () => Promise.resolve();
  return {
    db,
    dialect: 'sqlite',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    // One connection, used by one statement at a time: busy only while a statement runs, which
    // blocks the process, so it is idle whenever anyone can look.
    poolUse: () => ({ open: 1, idle: 1, waiting: 0, max: 1 }),
    prepare: () => undefined,
    close: async () => {
      await stopStatistics();
      await db.destroy();
      lock?.release();
    },
  };
}

async function openPostgres(config: Config, databaseUrl: string): Promise<Store> {
  // Loaded only for PostgreSQL: the embedded default starts without it (a few tens of milliseconds).
  const { default: pg } = await import('pg');
  const poolSize = config.databasePoolSize;
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    // Under a burst, requests queue for a connection rather than fail; a slow statement is what is
    // bounded, so one cannot hold a connection for long.
    connectionTimeoutMillis: config.databasePoolWaitMs,
    statement_timeout: config.statementTimeoutMs,
  });
  // An idle client losing its connection (database restart) must not crash the process; the next
  // query gets a fresh connection or a 503.
  pool.on('error', () => undefined);
  const prepared = new PreparedStatements();
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: prepared.pool(pool) }) });
  return {
    db,
    dialect: 'postgres',
    prepare: (text) => prepared.add(text),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    poolUse: () => ({ open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: poolSize }),
    close: () => db.destroy(),
  };
}

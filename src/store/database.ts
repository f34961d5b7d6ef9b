import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { DataFolderLock } from './data-folder-lock.js';
import { migrateToLatest } from './migrate.js';

/**
 * Tables are declared by the resources at run time, so the query layer sees rows as plain records
 * and each resource's declaration gives them meaning.
 */
export type Row = Record<string, unknown>;
export type Database = Record<string, Row>;
export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** Throws when the database cannot answer a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Opens the configured store and brings its schema to the latest migration. */
export async function openStore(config: Config): Promise<Store> {
  const store = config.databaseUrl === undefined ? openEmbedded(config.dataDir) : openPostgres(config);
  try {
    await migrateToLatest(store.db, store.dialect);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

function openEmbedded(dataDir: string): Store {
  const lock = DataFolderLock.acquire(dataDir);
  let handle: Sqlite.Database;
  try {
    handle = new Sqlite(path.join(dataDir, 'stratum.db'));
    // WAL lets readers run beside the writer; FULL fsyncs the log on every commit, so an
    // acknowledged write survives a crash of the process or of the host.
    handle.pragma('journal_mode = WAL');
    handle.pragma('synchronous = FULL');
    handle.pragma('foreign_keys = ON');
    handle.pragma('busy_timeout = 5000');
  } catch (error) {
    lock.release();
    throw error;
  }
  fs.chmodSync(path.join(dataDir, 'stratum.db'), 0o600);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: handle }) });
  return {
    db,
    dialect: 'sqlite',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: async () => {
      await db.destroy();
      lock.release();
    },
  };
}

function openPostgres(config: Config): Store {
  const pool = new pg.Pool({
    connectionString: config.databaseUrl,
    max: config.databasePoolSize,
    connectionTimeoutMillis: 5000,
  });
  // An idle client losing its connection (database restart) must not crash the process; the next
  // query gets a fresh connection or a 503.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

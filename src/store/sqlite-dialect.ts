import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

/**
 * Kysely's SQLite dialect, with write transactions that take the write lock when they begin.
 * Kysely begins DEFERRED: a transaction reads on a snapshot and asks for the write lock at its first
 * write. When another connection (the statistics worker's ANALYZE, a console command writing beside
 * the server) holds that lock then, or committed since the snapshot, SQLite cannot let the reader
 * write and answers SQLITE_BUSY at once, without waiting out the busy timeout: a 503 for a write
 * that only had to wait.
 * BEGIN IMMEDIATE waits its turn for the lock instead, and then reads what it writes on. The process
 * has one connection, which runs one transaction at a time, so this takes no concurrency away.
 */
export class WritingSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateTransactionDriver(this.#config);
  }
}

class ImmediateTransactionDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

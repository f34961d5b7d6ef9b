import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

/** Statements prepared at once; the texts come from the shapes of store/query-shapes.ts, which are bounded too. */
const capacity = 1000;

/**
 * SQL texts that PostgreSQL keeps parsed and planned on each connection, under a name: the texts of
 * the queries compiled once per shape, sent many times with other values. PostgreSQL otherwise
 * parses and plans each statement it is sent (Kysely sends them unnamed), which for a point read
 * costs more of the database's CPU than running it. Other texts, whose best plan may depend on the
 * values (a filter's pattern), stay unnamed.
 */
export class PreparedStatements {
  private readonly names = new Map<string, string>();

  /** Prepares `text` on each connection that runs it from now on. */
  add(text: string): void {
    if (this.names.has(text) || this.names.size >= capacity) return;
    this.names.set(text, `stratum_${this.names.size + 1}`);
  }

  nameOf(text: string): string | undefined {
    return this.names.get(text);
  }

  /** The pool as Kysely uses it, its clients sending the texts added here as named statements. */
  pool(pool: pg.Pool): PostgresPool {
    return {
      connect: async () => this.client(await pool.connect()),
      end: () => pool.end(),
    };
  }

  private client(client: pg.PoolClient): PostgresPoolClient {
    function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
    function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
    function query<R>(this: PreparedStatements, given: string | PostgresCursor<R>, parameters?: ReadonlyArray<unknown>) {
      if (typeof given !== 'string') return client.query(given as unknown as pg.Submittable) as unknown as PostgresCursor<R>;
      const name = this.nameOf(given);
      const values = [...(parameters ?? [])];
      return (name === undefined ? client.query(given, values) : client.query({ name, text: given, values })) as unknown as Promise<
        PostgresQueryResult<R>
      >;
    }
    return { query: query.bind(this), release: () => client.release() };
  }
}

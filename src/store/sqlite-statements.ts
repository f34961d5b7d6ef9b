import type Sqlite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * Prepared statements kept per SQL text, at most so many and so much text: a caller's filter shapes
 * its statement's text, so kept statements are bounded in bytes too, and one longer than any hot
 * query is prepared each time and not kept. SQLite refuses a statement it cannot take when it is
 * prepared, before it could be kept.
 */
const cachedStatements = 500;
const cachedTextBytes = 4 * 1024 * 1024;
const longestKeptText = 16 * 1024;

/** A statement that changes the schema: the columns of a `select *` kept prepared may change with it. */
const schemaChange = /^\s*(create|alter|drop)\b/i;

/**
 * The SQLite handle as Kysely uses it, with prepared statements reused per SQL text: Kysely's
 * driver prepares every query, and preparing costs several times what running a point query does.
 * Statements are used one at a time (the driver runs one query at a time on its one connection).
 * A statement that changes the schema empties the cache, so no statement outlives the columns it
 * was prepared for.
 */
export function withStatementCache(handle: Sqlite.Database): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  let keptBytes = 0;
  const forgetOldest = () => {
    const oldest = statements.keys().next().value;
    if (oldest === undefined) return;
    statements.delete(oldest);
    keptBytes -= oldest.length;
  };
  return {
    close: () => handle.close(),
    prepare: (text: string) => {
      let statement = statements.get(text);
      if (statement !== undefined) {
        // Most recently used last, so the oldest is the first to go.
        statements.delete(text);
      } else {
        const prepared = handle.prepare(text);
        if (!prepared.reader && schemaChange.test(text)) {
          statements.clear();
          keptBytes = 0;
          return prepared;
        }
        statement = prepared.reader ? rowsAsObjects(prepared) : prepared;
        if (text.length > longestKeptText) return statement;
        while (statements.size > 0 && (statements.size >= cachedStatements || keptBytes + text.length > cachedTextBytes)) forgetOldest();
        keptBytes += text.length;
      }
      statements.set(text, statement);
      return statement;
    },
  };
}

/**
 * A reading statement whose rows come from SQLite as arrays and become objects here, each a copy
 * of one template object that has the statement's columns in order. better-sqlite3 builds each
 * row object itself, one property at a time through V8's API; for a page of 100 rows that was
 * 40% of the statement's time. Later columns of the same name win, as they do in better-sqlite3.
 */
function rowsAsObjects(prepared: Sqlite.Statement): SqliteStatement {
  const raw = prepared.raw(true);
  const names = raw.columns().map((column) => column.name);
  const template: Record<string, unknown> = Object.fromEntries(names.map((name) => [name, null]));
  const toObject = (values: unknown[]): Record<string, unknown> => {
    const row = { ...template };
    for (let i = 0; i < names.length; i++) row[names[i] as string] = values[i];
    return row;
  };
  return {
    reader: true,
    all: (parameters) => {
      const rows = raw.all(parameters) as unknown[][];
      const objects = new Array<Record<string, unknown>>(rows.length);
      for (let i = 0; i < rows.length; i++) objects[i] = toObject(rows[i] as unknown[]);
      return objects;
    },
    iterate: function* (parameters) {
      for (const values of raw.iterate(parameters) as IterableIterator<unknown[]>) yield toObject(values);
    },
    run: (parameters) => raw.run(parameters),
  };
}

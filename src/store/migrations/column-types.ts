import { sql, type CreateTableBuilder, type Expression } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Column types that behave the same on both stores.
 *
 * Text compares and sorts in binary order on both: SQLite does so by default, PostgreSQL needs the
 * "C" collation (its database default follows the locale). Timestamps are ISO 8601 UTC text with
 * milliseconds, which sorts chronologically as text. Booleans are 0/1 integers, because
 * better-sqlite3 cannot bind JavaScript booleans.
 */
export function columnTypes(dialect: Dialect): { text: Expression<unknown> | 'text'; timestamp: Expression<unknown> | 'text' } {
  const text = dialect === 'postgres' ? sql`text collate "C"` : 'text';
  return { text, timestamp: text };
}

/** A boolean column: 0 or 1, never null, `fallback` by default. */
export function flagColumn(name: string, fallback: 0 | 1) {
  return <T extends string>(table: CreateTableBuilder<T>): CreateTableBuilder<T> =>
    table.addColumn(name, 'integer', (c) =>
      c
        .notNull()
        .defaultTo(fallback)
        .check(sql`${sql.ref(name)} in (0, 1)`),
    );
}

/** The audit columns every record carries: who created and last changed it, and when. */
export function withAuditColumns<T extends string>(dialect: Dialect) {
  const { text, timestamp } = columnTypes(dialect);
  return (table: CreateTableBuilder<T>): CreateTableBuilder<T> =>
    table
      .addColumn('created_by', text, (c) => c.notNull())
      .addColumn('created_date', timestamp, (c) => c.notNull())
      .addColumn('updated_by', text, (c) => c.notNull())
      .addColumn('updated_date', timestamp, (c) => c.notNull());
}

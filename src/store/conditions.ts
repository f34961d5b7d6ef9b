import { sql, type RawBuilder, type SqlBool } from 'kysely';

/** A SQL condition built from parts with bound values, never spliced text. */
export type Condition = RawBuilder<SqlBool>;

export const always: Condition = sql<SqlBool>`1 = 1`;

/** Every condition holds (true when there are none). */
export function allOf(conditions: readonly Condition[]): Condition {
  return conditions.length === 0 ? always : sql<SqlBool>`(${sql.join(conditions, sql` and `)})`;
}

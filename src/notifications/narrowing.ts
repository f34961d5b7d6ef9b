import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database, ManyToMany } from '../model/index.js';

/**
 * Which templates a notification configuration fires for: those its templates relationship lists,
 * or every one when it lists none. What a job's status change asks before delivering, so that a
 * configuration narrowed in the web UI stays quiet for the jobs of other templates.
 */

/**
 * The SQL condition that the configuration in `alias` (its `id`) applies to a job of `templateId`:
 * for a query over many configurations (a workspace's and its organization's) at once.
 */
export function appliesToTemplateCondition(templates: ManyToMany, alias: string, templateId: string): RawBuilder<SqlBool> {
  const { table, column, otherColumn } = templates.join;
  const owner = sql.ref(`${alias}.id`);
  const pairs = sql.table(table);
  return sql<SqlBool>`(not exists (select 1 from ${pairs} where ${sql.ref(column)} = ${owner}) or exists (select 1 from ${pairs} where ${sql.ref(column)} = ${owner} and ${sql.ref(otherColumn)} = ${templateId}))`;
}

/** Whether the configuration `configurationId` applies to a job of the template `templateId`. */
export async function appliesToTemplate(
  db: Kysely<Database>,
  templates: ManyToMany,
  configurationId: string,
  templateId: string,
): Promise<boolean> {
  const { table, column, otherColumn } = templates.join;
  const row = await db
    .selectFrom(table)
    .select([
      sql<number | string>`count(*)`.as('listed'),
      sql<number | string>`coalesce(sum(case when ${sql.ref(otherColumn)} = ${templateId} then 1 else 0 end), 0)`.as('matching'),
    ])
    .where(column, '=', configurationId)
    .executeTakeFirstOrThrow();
  return Number(row.listed) === 0 || Number(row.matching) > 0;
}

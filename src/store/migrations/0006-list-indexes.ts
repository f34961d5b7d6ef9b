import type { Kysely, Migration } from 'kysely';

/**
 * Indexes for the lists the API promises to serve fast however many records a parent holds (the
 * `indexes` of the declarations): items of a collection and variables of a workspace sorted by
 * their update time, either way, and filtered by category and a key or key prefix. Each index ends
 * with the id, which breaks ties in the same direction, so a page reads as a range of the index.
 */
export function listIndexes(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const [table, parent] of [
        ['item', 'collection_id'],
        ['variable', 'workspace_id'],
      ] as const) {
        await db.schema.createIndex(`${table}_updated`).on(table).columns([parent, 'updated_date', 'id']).execute();
        await db.schema.createIndex(`${table}_category_key`).on(table).columns([parent, 'category', 'key', 'id']).execute();
      }
    },
  };
}

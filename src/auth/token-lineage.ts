import { sql, type Kysely } from 'kysely';
import type { Row } from '../model/index.js';
import type { Database } from '../store/database.js';

/**
 * A token's lineage is the chain of `api_token.parent_id`: the API token each one was created
 * with. Both walks are recursive queries, which SQLite and PostgreSQL run alike. A chain has no
 * cycle: a token's parent exists before it, and `parent_id` never changes.
 */

/** One token of a chain, with what decides whether it still works. */
interface ChainLink {
  id: string;
  token_hash: string;
  revoked_at: string | null;
  expires_at: string | null;
}

/** The token with this id and every ancestor of it; empty when there is no such token. */
export async function tokenWithAncestors(db: Kysely<Database>, id: string): Promise<ChainLink[]> {
  const { rows } = await sql<ChainLink>`
    with recursive chain(id, parent_id, token_hash, revoked_at, expires_at) as (
      select id, parent_id, token_hash, revoked_at, expires_at from api_token where id = ${id}
      union all
      select t.id, t.parent_id, t.token_hash, t.revoked_at, t.expires_at from api_token t join chain c on t.id = c.parent_id
    )
    select id, token_hash, revoked_at, expires_at from chain`.execute(db);
  return rows;
}

/**
 * Marks the token and every descendant not yet revoked as revoked when `audit` says (its
 * `updated_date`), by whom it says, in one statement, and returns the rows it marked, as marked. A descendant
 * created while this runs may escape the statement; the ancestor check of `tokenWithAncestors`
 * refuses it all the same.
 */
export async function revokeWithDescendants(
  db: Kysely<Database>,
  id: string,
  audit: { updated_by: string; updated_date: string },
): Promise<Row[]> {
  const { rows } = await sql<Row>`
    with recursive lineage(id) as (
      select id from api_token where id = ${id}
      union
      select t.id from api_token t join lineage l on t.parent_id = l.id
    )
    update api_token set revoked_at = ${audit.updated_date}, updated_by = ${audit.updated_by}, updated_date = ${audit.updated_date}
    where revoked_at is null and id in (select id from lineage)
    returning *`.execute(db);
  return rows;
}

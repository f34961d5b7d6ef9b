import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Row } from '../model/index.js';
import type { Database } from '../store/database.js';
import type { TrackedKind } from './tokens.js';

/**
 * The stored API tokens (`api_token`), read and written on the handle given: the engine's
 * transaction for its token operations. Who may do what is the policy table's; the recursive walks
 * over a token's lineage are token-lineage.ts's.
 */

/** A record neither revoked nor past its expiry. */
/**
 * An API token in the audit trail: what it is for, whose, and until when; its hash, and the token
 * it is, never.
 */
export const tokenChanges = {
  table: 'api_token',
  type: 'api token',
  key: 'id',
  shown: {
    kind: 'kind',
    description: 'description',
    team: 'group_name',
    owner: 'owner',
    expiresAt: 'expires_at',
    revokedAt: 'revoked_at',
    parent: 'parent_id',
  },
} as const;

const isLive = (now: Date) => (eb: ExpressionBuilder<Database, 'api_token'>) =>
  eb.and([eb('revoked_at', 'is', null), eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now.toISOString())])]);

/** One token by id, of one kind and live when `only` says so; undefined when there is none. */
export function findToken(db: Kysely<Database>, id: string, only: { kind?: TrackedKind; live?: boolean } = {}): Promise<Row | undefined> {
  let query = db.selectFrom('api_token').selectAll().where('id', '=', id);
  if (only.kind !== undefined) query = query.where('kind', '=', only.kind);
  if (only.live === true) query = query.where('revoked_at', 'is', null);
  return query.executeTakeFirst();
}

/** The live tokens of a kind, of one owner or of some groups (all of them without either), oldest first. */
export function liveTokens(
  db: Kysely<Database>,
  kind: TrackedKind,
  whose: { owner: string } | { groups: readonly string[] } | 'all',
): Promise<Row[]> {
  let query = db.selectFrom('api_token').selectAll().where('kind', '=', kind).where(isLive(new Date()));
  if (whose !== 'all' && 'owner' in whose) query = query.where('owner', '=', whose.owner);
  else if (whose !== 'all') {
    if (whose.groups.length === 0) return Promise.resolve([]);
    query = query.where('group_name', 'in', whose.groups);
  }
  return query.orderBy('created_date').orderBy('id').execute();
}

/** Every token of every owner, oldest first: the live ones, or with `includeInactive` every one. */
export function everyToken(db: Kysely<Database>, includeInactive: boolean): Promise<Row[]> {
  let query = db.selectFrom('api_token').selectAll();
  if (!includeInactive) query = query.where(isLive(new Date()));
  return query.orderBy('created_date').orderBy('id').execute();
}

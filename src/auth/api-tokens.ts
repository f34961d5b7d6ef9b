import { createHash } from 'node:crypto';
import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import { badRequest, notFound } from '../errors.js';
import { authorizeTokenAdministration, authorizeTokenCreation, listedTokens, mayRevokeToken } from '../policy/tokens.js';
import type { Database } from '../store/database.js';
import { isUuid, newRecordId } from '../store/record-id.js';
import type { Logger } from '../log.js';
import { auditName, type Caller } from './caller.js';
import { revokeWithDescendants, tokenWithAncestors } from './token-lineage.js';
import { recordOf, viewOf, type TokenRecord, type TokenView } from './token-views.js';
import type { TokenSigner, TrackedKind } from './tokens.js';

/** What a client asks for when it creates a team or personal token. */
export interface TokenRequest {
  description: string;
  /** The team a team token speaks for; undefined for a personal token. */
  group: string | undefined;
  days: number;
  hours: number;
  minutes: number;
}

const lifetimeFields = ['days', 'hours', 'minutes'] as const;
const secondsPer = { days: 86400, hours: 3600, minutes: 60 } as const;
/** A longer lifetime than a century is a typo, and would overflow the date arithmetic sooner or later. */
const maxLifetimeSeconds = 100 * 365 * 86400;

/** A token request's body as its schema lets it through: lifetimes as integers, numeric strings or null. */
export interface TokenRequestBody {
  description: string;
  group?: string;
  days?: number | string | null;
  hours?: number | string | null;
  minutes?: number | string | null;
}

/** The request as the service works with it: whole numbers, checked against the longest lifetime. */
export function tokenRequestOf(body: TokenRequestBody): TokenRequest {
  const lifetime = { days: 0, hours: 0, minutes: 0 };
  for (const name of lifetimeFields) {
    const value = body[name];
    lifetime[name] = typeof value === 'string' ? Number(value.trim() === '' ? 0 : value) : (value ?? 0);
  }
  if (lifetimeSeconds(lifetime) > maxLifetimeSeconds) {
    throw badRequest('invalid_field', 'A token may live at most 100 years; all zero is a token that never expires.', { pointer: '/days' });
  }
  return { description: body.description, group: body.group, ...lifetime };
}

/** A token's lifetime in seconds; zero for one that never expires. */
const lifetimeSeconds = (lifetime: Pick<TokenRequest, (typeof lifetimeFields)[number]>) =>
  lifetimeFields.reduce((sum, name) => sum + lifetime[name] * secondsPer[name], 0);

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** How long one server trusts a live check before asking the database again: revocation elsewhere shows within this. */
const liveCacheMs = 500;
const liveCacheMaxEntries = 10000;
/** How often one server records that a token was used: an administrator needs the day, not every request. */
const useRecordIntervalMs = 60_000;

/**
 * Team and personal API tokens: issued as signed JWTs whose `jti` is a database record, listed
 * without their strings, revoked by marking the record. A token created with an API token records
 * it as its parent, expires no later than the token it was created with, and stops working when
 * any ancestor is revoked. Every request with such a token checks the record and its ancestors, so
 * a revocation stops the token at once here and within `liveCacheMs` on other servers.
 */
export class ApiTokens {
  private readonly live = new Map<string, { hash: string; checkedAt: number }>();
  private readonly useRecordedAt = new Map<string, number>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly signer: TokenSigner,
    private readonly log: Logger,
    /** The longest lifetime a personal token may ask for, in days; undefined: no maximum. */
    private readonly personalTokenMaxDays: number | undefined,
  ) {}

  async issue(caller: Caller, kind: TrackedKind, request: TokenRequest): Promise<TokenView & { token: string }> {
    authorizeTokenCreation(caller, request.group);
    const seconds = lifetimeSeconds(request);
    const maxDays = this.personalTokenMaxDays;
    // Judged on what was asked, not on the bound below, so the answer does not depend on the caller's token.
    if (kind === 'personal' && maxDays !== undefined && (seconds === 0 || seconds > maxDays * secondsPer.days)) {
      throw badRequest(
        'invalid_field',
        `A personal access token may live at most ${maxDays} days on this server; ask for ${maxDays} days or fewer (not ${seconds === 0 ? 'a token that never expires' : 'longer'}).`,
        { pointer: '/days' },
      );
    }
    const id = newRecordId();
    const now = new Date();
    // A token created with an API token never outlives it. A sign-in (OIDC, or a token the CLI minted)
    // is not a parent: creating a long-lived token while signed in for an hour is what the token pages
    // are for, and STRATUM_PERSONAL_TOKEN_MAX_DAYS bounds what a person may create.
    const bound = caller.token.trackedId === undefined ? undefined : caller.token.expiresAt;
    const asked = seconds === 0 ? undefined : new Date(now.getTime() + seconds * 1000);
    const expiresAt = asked === undefined || (bound !== undefined && bound < asked) ? bound : asked;
    const issued = { ttlSeconds: seconds === 0 ? undefined : seconds, notAfter: bound, tracked: { id, kind } };
    const { token } = await this.signer.sign(
      request.group === undefined
        ? {
            // A personal token acts as its creator, with the groups the creator had at that moment.
            subject: caller.subject,
            ...(caller.email === undefined ? {} : { email: caller.email }),
            ...(caller.name === undefined ? {} : { name: caller.name }),
            groups: caller.groups,
            ...issued,
          }
        : { subject: `team:${request.group}`, name: `${request.group} (Team Token)`, groups: [request.group], ...issued },
    );
    const row = {
      id,
      kind,
      token_hash: hashToken(token),
      description: request.description,
      group_name: request.group ?? null,
      owner: caller.subject,
      days: request.days,
      hours: request.hours,
      minutes: request.minutes,
      expires_at: expiresAt === undefined ? null : expiresAt.toISOString(),
      revoked_at: null,
      created_by: auditName(caller),
      created_date: now.toISOString(),
      parent_id: caller.token.trackedId ?? null,
      last_used_at: null,
    };
    await this.db.insertInto('api_token').values(row).execute();
    return { ...viewOf(row), token };
  }

  /** The live tokens of the caller: of its groups (every group for administrators), or its own personal ones. */
  async list(caller: Caller, kind: TrackedKind): Promise<TokenView[]> {
    let query = this.db.selectFrom('api_token').selectAll().where('kind', '=', kind).where(isLiveRecord(new Date()));
    const listed = listedTokens(caller, kind);
    if (listed !== 'all' && 'owner' in listed) query = query.where('owner', '=', listed.owner);
    else if (listed !== 'all') {
      if (listed.groups.length === 0) return [];
      query = query.where('group_name', 'in', listed.groups);
    }
    const rows = await query.orderBy('created_date').orderBy('id').execute();
    return rows.map(viewOf);
  }

  /**
   * Every team and personal token of every owner, for administrators: the live ones, or with
   * `includeInactive` the revoked and expired ones too.
   */
  listAll(caller: Caller, includeInactive: boolean): Promise<TokenRecord[]> {
    return listEveryToken(this.db, caller, includeInactive);
  }

  /**
   * Revokes a token the caller may see (a member of its group, its owner, or an administrator)
   * with every token created from it. Unknown, revoked or hidden is a 404.
   */
  async revoke(caller: Caller, kind: TrackedKind, id: string): Promise<void> {
    const revoked = await revokeLineage(this.db, id, `${kind} token`, async (trx) => {
      const row = await trx
        .selectFrom('api_token')
        .selectAll()
        .where('id', '=', id)
        .where('kind', '=', kind)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      const holder =
        row === undefined
          ? undefined
          : { kind, group: typeof row.group_name === 'string' ? row.group_name : null, owner: String(row.owner) };
      if (holder === undefined || !mayRevokeToken(caller, holder)) throw notFound(`${kind} token`, id);
    });
    for (const gone of revoked) this.live.delete(gone);
  }

  /**
   * Revokes any token with every token created from it, for administrators; an unknown id is a 404.
   * A token already revoked answers as revoked again, and any descendant of it that a racing
   * creation left unmarked is marked now.
   */
  async revokeAny(caller: Caller, id: string): Promise<void> {
    for (const gone of await revokeAnyToken(this.db, caller, id)) this.live.delete(gone);
  }

  /**
   * Whether the token with this id is the one issued for it, and neither it nor any token it
   * descends from is revoked or expired.
   */
  async isLive(id: string, token: string): Promise<boolean> {
    const hash = hashToken(token);
    const cached = this.live.get(id);
    if (cached !== undefined && cached.hash === hash && Date.now() - cached.checkedAt < liveCacheMs) return true;
    const chain = await tokenWithAncestors(this.db, id);
    const now = new Date().toISOString();
    const live =
      chain.some((link) => link.id === id && link.token_hash === hash) &&
      chain.every((link) => link.revoked_at === null && (link.expires_at === null || link.expires_at > now));
    if (!live) {
      this.live.delete(id);
      return false;
    }
    if (this.live.size >= liveCacheMaxEntries) this.live.clear();
    this.live.set(id, { hash, checkedAt: Date.now() });
    return true;
  }

  /**
   * Records that a live token was used, at most once per `useRecordIntervalMs` per token on this
   * server, so that authenticating never costs a write per request. The record is bookkeeping: a
   * failure to write it is logged and the request goes on.
   */
  async recordUse(id: string, context: Record<string, unknown> = {}): Promise<void> {
    const now = Date.now();
    if (now - (this.useRecordedAt.get(id) ?? 0) < useRecordIntervalMs) return;
    if (this.useRecordedAt.size >= liveCacheMaxEntries) this.useRecordedAt.clear();
    this.useRecordedAt.set(id, now);
    try {
      await this.db
        .updateTable('api_token')
        .set({ last_used_at: new Date(now).toISOString() })
        .where('id', '=', id)
        .execute();
    } catch (error) {
      this.log.warn(
        { ...context, reason: error instanceof Error ? error.message : String(error) },
        'could not record the use of an API token',
      );
    }
  }
}

/**
 * Every team and personal token of every owner, for administrators (the HTTP endpoint and the
 * console): the live ones, or with `includeInactive` the revoked and expired ones too.
 */
export async function listEveryToken(db: Kysely<Database>, caller: Caller, includeInactive: boolean): Promise<TokenRecord[]> {
  authorizeTokenAdministration(caller);
  let query = db.selectFrom('api_token').selectAll();
  if (!includeInactive) query = query.where(isLiveRecord(new Date()));
  const rows = await query.orderBy('created_date').orderBy('id').execute();
  return rows.map(recordOf);
}

/** Revokes any token and its descendants, for administrators; returns the ids it marked. An unknown id is a 404. */
export function revokeAnyToken(db: Kysely<Database>, caller: Caller, id: string): Promise<string[]> {
  authorizeTokenAdministration(caller);
  return revokeLineage(db, id, 'API token', async (trx) => {
    if ((await trx.selectFrom('api_token').select('id').where('id', '=', id).executeTakeFirst()) === undefined) {
      throw notFound('API token', id);
    }
  });
}

/** Checks that the caller may revoke the token, then revokes it and its descendants, in one transaction. */
async function revokeLineage(
  db: Kysely<Database>,
  id: string,
  noun: string,
  check: (trx: Transaction<Database>) => Promise<void>,
): Promise<string[]> {
  // Not a record id: nothing to look up, and nothing a database would choke on (PostgreSQL refuses NUL).
  if (!isUuid(id)) throw notFound(noun, id);
  return db.transaction().execute(async (trx) => {
    await check(trx);
    return revokeWithDescendants(trx, id, new Date().toISOString());
  });
}

/** A record neither revoked nor past its expiry. */
const isLiveRecord = (now: Date) => (eb: ExpressionBuilder<Database, 'api_token'>) =>
  eb.and([eb('revoked_at', 'is', null), eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now.toISOString())])]);

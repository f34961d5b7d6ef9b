import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { badRequest } from '../errors.js';
import type { Database } from '../store/database.js';
import type { Logger } from '../log.js';
import type { Caller } from './caller.js';
import { tokenWithAncestors } from './token-lineage.js';
import type { TokenSigner, TrackedKind } from './tokens.js';

/** The longest lifetime, in days, a new token of each kind may ask for; undefined: no maximum. */
export type TokenMaxDays = Readonly<Record<TrackedKind, number | undefined>>;

const tokenNames: Readonly<Record<TrackedKind, string>> = { team: 'A team token', personal: 'A personal access token' };

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
 * Team and personal API tokens as signed JWTs whose `jti` is the id of a database record (the
 * engine's token operations keep the records): minted for a request, and checked on every request
 * that carries one. A token created with an API token records it as its parent, expires no later
 * than the token it was created with, and stops working when any ancestor is revoked. Every
 * request with such a token checks the record and its ancestors, so a revocation stops the token
 * at once here and within `liveCacheMs` on other servers.
 */
export class ApiTokens {
  private readonly live = new Map<string, { hash: string; checkedAt: number }>();
  private readonly useRecordedAt = new Map<string, number>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly signer: TokenSigner,
    private readonly log: Logger,
    /** The longest lifetime a token of each kind may ask for, in days; undefined: no maximum. */
    private readonly maxDays: TokenMaxDays,
  ) {}

  /**
   * Signs the token a request asks for, with `id` (its record's) as its `jti`, and says when it
   * expires. Its lifetime is bounded by its kind's maximum (STRATUM_PERSONAL_TOKEN_MAX_DAYS,
   * STRATUM_TEAM_TOKEN_MAX_DAYS) when one is set, and a token created with an API token never outlives that token.
   */
  async mint(
    caller: Caller,
    kind: TrackedKind,
    request: TokenRequest,
    id: string,
    now: Date,
  ): Promise<{ token: string; expiresAt: Date | undefined }> {
    const seconds = lifetimeSeconds(request);
    const maxDays = this.maxDays[kind];
    // Judged on what was asked, not on the bound below, so the answer does not depend on the caller's token.
    if (maxDays !== undefined && (seconds === 0 || seconds > maxDays * secondsPer.days)) {
      throw badRequest(
        'invalid_field',
        `${tokenNames[kind]} may live at most ${maxDays} days on this server; ask for ${maxDays} days or fewer (not ${seconds === 0 ? 'a token that never expires' : 'longer'}).`,
        { pointer: '/days' },
      );
    }
    // A token created with an API token never outlives it. A sign-in (OIDC, or a token the CLI minted)
    // is not a parent: creating a long-lived token while signed in for an hour is what the token pages
    // are for, and the kind's maximum bounds what a person may create.
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
    return { token, expiresAt };
  }

  /** Forgets the live checks of tokens just revoked, so that this server refuses them at once. */
  forget(ids: readonly string[]): void {
    for (const id of ids) this.live.delete(id);
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

import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { badRequest, forbidden, notFound } from '../jsonapi/errors.js';
import { newRecordId } from '../store/record-id.js';
import type { Database, Row } from '../store/database.js';
import { auditName, type Caller } from './caller.js';
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

/** A token as listed: everything but the token string, which is shown once, at creation. */
export interface TokenView {
  id: string;
  description: string;
  group?: string;
  days: number;
  hours: number;
  minutes: number;
  createdBy: string;
  createdDate: string;
  expiresAt: string | null;
  deleted: false;
}

const lifetimeFields = ['days', 'hours', 'minutes'] as const;
const secondsPer = { days: 86400, hours: 3600, minutes: 60 } as const;
/** A longer lifetime than a century is a typo, and would overflow the date arithmetic sooner or later. */
const maxLifetimeSeconds = 100 * 365 * 86400;

/**
 * Reads a token request as existing clients send it: numbers as integers or numeric strings (the
 * web UI sends strings), empty `id` and `token` keys (the Terraform provider sends them), nothing else.
 */
export function parseTokenRequest(body: unknown, kind: TrackedKind): TokenRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('invalid_body', 'The request body must be a JSON object.');
  }
  const fields = body as Record<string, unknown>;
  const known = new Set<string>(['description', 'id', 'token', ...lifetimeFields, ...(kind === 'team' ? ['group'] : [])]);
  for (const name of Object.keys(fields)) {
    if (!known.has(name)) throw badRequest('unknown_field', `Unknown field ${name}; a ${kind} token takes ${[...known].join(', ')}.`, { pointer: `/${name}` });
  }
  for (const name of ['id', 'token']) {
    const value = fields[name];
    if (value !== undefined && value !== null && value !== '') {
      throw badRequest('invalid_field', `${name} is assigned by the server; send it empty or leave it out.`, { pointer: `/${name}` });
    }
  }
  const lifetime = { days: 0, hours: 0, minutes: 0 };
  for (const name of lifetimeFields) lifetime[name] = wholeNumber(fields[name], name);
  if (lifetimeSeconds(lifetime) > maxLifetimeSeconds) throw badRequest('invalid_field', 'A token may live at most 100 years; all zero is a token that never expires.', { pointer: '/days' });
  return {
    description: requiredText(fields.description, 'description', 512),
    group: kind === 'team' ? requiredText(fields.group, 'group', 128) : undefined,
    ...lifetime,
  };
}

/** A token's lifetime in seconds; zero for one that never expires. */
const lifetimeSeconds = (lifetime: Pick<TokenRequest, (typeof lifetimeFields)[number]>) =>
  lifetimeFields.reduce((sum, name) => sum + lifetime[name] * secondsPer[name], 0);

function wholeNumber(value: unknown, name: string): number {
  if (value === undefined || value === null || value === '') return 0;
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number < 0) {
    throw badRequest('invalid_field', `${name} must be a whole number of zero or more, as a number or a numeric string.`, { pointer: `/${name}` });
  }
  return number;
}

function requiredText(value: unknown, name: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw badRequest('invalid_field', `${name} is required.`, { pointer: `/${name}` });
  if (value.length > max || value.includes('\u0000')) throw badRequest('invalid_field', `${name} must be at most ${max} characters.`, { pointer: `/${name}` });
  return value;
}

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** How long one server trusts a live check before asking the database again: revocation elsewhere shows within this. */
const liveCacheMs = 500;
const liveCacheMaxEntries = 10000;

/**
 * Team and personal API tokens: issued as signed JWTs whose `jti` is a database record, listed
 * without their strings, revoked by marking the record. Every request with such a token checks the
 * record, so a revocation stops the token at once here and within `liveCacheMs` on other servers.
 */
export class ApiTokens {
  private readonly live = new Map<string, { hash: string; checkedAt: number }>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly signer: TokenSigner,
  ) {}

  async issue(caller: Caller, kind: TrackedKind, request: TokenRequest): Promise<TokenView & { token: string }> {
    if (request.group !== undefined && !caller.isAdministrator && !caller.groups.includes(request.group)) {
      throw forbidden(`Only members of ${request.group} (or administrators) may create its tokens.`);
    }
    const id = newRecordId();
    const now = new Date();
    const seconds = lifetimeSeconds(request);
    const expiresAt = seconds === 0 ? null : new Date(now.getTime() + seconds * 1000).toISOString();
    const issued = { ttlSeconds: seconds === 0 ? undefined : seconds, tracked: { id, kind } };
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
      expires_at: expiresAt,
      revoked_at: null,
      created_by: auditName(caller),
      created_date: now.toISOString(),
    };
    await this.db.insertInto('api_token').values(row).execute();
    return { ...viewOf(row), token };
  }

  /** The live tokens of the caller: of its groups (every group for administrators), or its own personal ones. */
  async list(caller: Caller, kind: TrackedKind): Promise<TokenView[]> {
    const now = new Date().toISOString();
    let query = this.db
      .selectFrom('api_token')
      .selectAll()
      .where('kind', '=', kind)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
    if (kind === 'personal') query = query.where('owner', '=', caller.subject);
    else if (!caller.isAdministrator) {
      if (caller.groups.length === 0) return [];
      query = query.where('group_name', 'in', caller.groups);
    }
    const rows = await query.orderBy('created_date').orderBy('id').execute();
    return rows.map(viewOf);
  }

  /** Revokes a token the caller may see: a member of its group, its owner, or an administrator. Unknown is a 404. */
  async revoke(caller: Caller, kind: TrackedKind, id: string): Promise<void> {
    const row = await this.db.selectFrom('api_token').selectAll().where('id', '=', id).where('kind', '=', kind).where('revoked_at', 'is', null).executeTakeFirst();
    const allowed =
      row !== undefined &&
      (caller.isAdministrator || (kind === 'team' ? typeof row.group_name === 'string' && caller.groups.includes(row.group_name) : row.owner === caller.subject));
    if (!allowed) throw notFound(`${kind} token`, id);
    await this.db.updateTable('api_token').set({ revoked_at: new Date().toISOString() }).where('id', '=', id).execute();
    this.live.delete(id);
  }

  /** Whether the token with this id is the one issued for it, and neither revoked nor expired. */
  async isLive(id: string, token: string): Promise<boolean> {
    const hash = hashToken(token);
    const cached = this.live.get(id);
    if (cached !== undefined && cached.hash === hash && Date.now() - cached.checkedAt < liveCacheMs) return true;
    const row = await this.db.selectFrom('api_token').select(['token_hash', 'revoked_at', 'expires_at']).where('id', '=', id).executeTakeFirst();
    const live =
      row !== undefined &&
      row.token_hash === hash &&
      row.revoked_at === null &&
      (typeof row.expires_at !== 'string' || row.expires_at > new Date().toISOString());
    if (!live) {
      this.live.delete(id);
      return false;
    }
    if (this.live.size >= liveCacheMaxEntries) this.live.clear();
    this.live.set(id, { hash, checkedAt: Date.now() });
    return true;
  }
}

function viewOf(row: Row): TokenView {
  return {
    id: String(row.id),
    description: String(row.description),
    ...(typeof row.group_name === 'string' ? { group: row.group_name } : {}),
    days: Number(row.days),
    hours: Number(row.hours),
    minutes: Number(row.minutes),
    createdBy: String(row.created_by),
    createdDate: String(row.created_date),
    expiresAt: typeof row.expires_at === 'string' ? row.expires_at : null,
    deleted: false,
  };
}

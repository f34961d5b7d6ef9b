import { hashToken, type TokenRequest } from '../auth/api-tokens.js';
import { auditName } from '../auth/caller.js';
import { revokeWithDescendants } from '../auth/token-lineage.js';
import { everyToken, findToken, liveTokens, tokenChanges } from '../auth/token-records.js';
import { recordOf, viewOf, type TokenRecord, type TokenView } from '../auth/token-views.js';
import type { TrackedKind } from '../auth/tokens.js';
import { notFound } from '../errors.js';
import { auditColumns } from '../model/index.js';
import { authorize, type TokenHolder } from '../policy/rules.js';
import { listedTokens } from '../policy/tokens.js';
import { isUuid, newRecordId } from '../store/record-id.js';
import { recordKeptChange } from './changes.js';
import { insertKept } from './kept-rows.js';
import { inTransaction, type Scope } from './scope.js';

/** A token just issued: its record as its creators list it, and the token itself, shown this once. */
export type IssuedToken = TokenView & { token: string };

const nounOf = (kind: TrackedKind) => `${kind} token`;

/** Issues a team or personal token for the caller (a team token: for a team it belongs to, 403 otherwise). */
export async function issueToken(scope: Scope, kind: TrackedKind, request: TokenRequest): Promise<IssuedToken> {
  const { caller, engine } = scope;
  const holder: TokenHolder = { kind, group: request.group ?? null, owner: caller.subject };
  await authorize(engine.policies.tokens.create, { caller, token: holder }, nounOf(kind), engine.registry.tenant.type);
  const id = newRecordId();
  const now = new Date();
  if (engine.tokens === undefined) throw new Error('a token issued through an engine opened without the token signer');
  const { token, expiresAt } = await engine.tokens.mint(caller, kind, request, id, now);
  const row = {
    id,
    kind,
    token_hash: hashToken(token),
    description: request.description,
    group_name: holder.group,
    owner: holder.owner,
    days: request.days,
    hours: request.hours,
    minutes: request.minutes,
    expires_at: expiresAt === undefined ? null : expiresAt.toISOString(),
    revoked_at: null,
    parent_id: caller.token.trackedId ?? null,
    last_used_at: null,
    ...auditColumns(auditName(caller), now.toISOString(), 'create'),
  };
  // A token is of the whole service, in no organization.
  await inTransaction(scope, undefined, (tx) => insertKept(tx, tokenChanges, row, { organizationId: undefined, action: 'issue' }));
  return { ...viewOf(row), token };
}

/** The live tokens of a kind the caller's list shows: its groups' team tokens (every one for administrators), its own personal ones. */
export async function listTokens(scope: Scope, kind: TrackedKind): Promise<TokenView[]> {
  return (await liveTokens(scope.db, kind, listedTokens(scope.caller, kind))).map(viewOf);
}

/**
 * Revokes a token the caller may revoke, with every token created from it; a token it may not
 * revoke, a revoked one and an unknown one are all a 404.
 */
export async function revokeToken(scope: Scope, kind: TrackedKind, id: string): Promise<void> {
  const { caller, engine } = scope;
  await revokeLineage(scope, id, nounOf(kind), async (tx) => {
    const row = await findToken(tx.db, id, { kind, live: true });
    const token =
      row === undefined ? undefined : { kind, group: typeof row.group_name === 'string' ? row.group_name : null, owner: String(row.owner) };
    return token !== undefined && (await engine.policies.tokens.revoke.allows({ caller, token }));
  });
}

/** Every token of every owner, for administrators: the live ones, or with `includeInactive` every one. */
export async function listEveryToken(scope: Scope, includeInactive: boolean): Promise<TokenRecord[]> {
  await authorizeAdministration(scope);
  return (await everyToken(scope.db, includeInactive)).map(recordOf);
}

/**
 * Revokes any token with every token created from it, for administrators, and returns the ids it
 * marked; an unknown id is a 404. A token already revoked answers as revoked again, and any
 * descendant of it that a racing creation left unmarked is marked now.
 */
export async function revokeAnyToken(scope: Scope, id: string): Promise<string[]> {
  await authorizeAdministration(scope);
  return revokeLineage(scope, id, 'API token', async (tx) => (await findToken(tx.db, id)) !== undefined);
}

function authorizeAdministration({ caller, engine }: Scope): Promise<void> {
  return authorize(engine.policies.tokens.administer, { caller }, 'API token', engine.registry.tenant.type);
}

/**
 * Revokes a token and its descendants in one transaction once `found` says the caller may (404
 * otherwise), and forgets their live checks on this server.
 */
async function revokeLineage(scope: Scope, id: string, noun: string, found: (tx: Scope) => Promise<boolean>): Promise<string[]> {
  // Not a record id: nothing to look up, and nothing a database would choke on (PostgreSQL refuses NUL).
  if (!isUuid(id)) throw notFound(noun, id);
  const revoked = await inTransaction(scope, undefined, async (tx) => {
    if (!(await found(tx))) throw notFound(noun, id);
    const marked = await revokeWithDescendants(tx.db, id, auditColumns(auditName(tx.caller), new Date().toISOString(), 'update'));
    for (const after of marked)
      recordKeptChange(tx, tokenChanges, { action: 'revoke', organizationId: undefined, before: { ...after, revoked_at: null }, after });
    return marked.map((row) => String(row.id));
  });
  scope.engine.tokens?.forget(revoked);
  return revoked;
}

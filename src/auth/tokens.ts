import { randomUUID } from 'node:crypto';
import { decodeJwt, SignJWT, type JWTPayload } from 'jose';
import { Hs256Failure, verifyHs256 } from './hs256.js';
import type { Caller, TokenKind } from './caller.js';

/** Issuer of every token this service signs. */
export const tokenIssuer = 'stratum';

/** The claim that marks a token recorded in the database, which can therefore be revoked. */
const trackedClaim = 'stratum_token';
/**
 * The kinds of revocable API token, as `api_token.kind` and each token's claim record them: a team
 * token speaks for one directory group, a personal token for the user who created it.
 */
export const trackedKinds = ['team', 'personal'] as const;
export type TrackedKind = (typeof trackedKinds)[number];
const isTrackedKind = (value: unknown): value is TrackedKind => trackedKinds.some((kind) => kind === value);

/** The claim of a state credential: the one workspace (and job) whose state it reaches. */
const stateClaim = 'stratum_state';

/** What a state credential reaches: one workspace's state, for one job. */
export interface StateScope {
  organizationId: string;
  workspaceId: string;
  jobReference: string;
}

/** A verified token: who it speaks for, its record when it is a revocable API token, and its workspace when it is a state credential. */
export interface VerifiedToken {
  caller: Caller;
  tracked: { id: string; kind: TrackedKind } | undefined;
  stateScope?: StateScope;
}

export interface TokenClaims {
  subject: string;
  email?: string;
  name?: string;
  groups: readonly string[];
  /** Lifetime in seconds; undefined for a token that never expires. */
  ttlSeconds: number | undefined;
  /** The latest it may expire, whatever its lifetime: a token created with another one never outlives it. */
  notAfter?: Date | undefined;
  /** For an API token: its record's id, which becomes the jti, and its kind. */
  tracked?: { id: string; kind: TrackedKind };
  /** For a state credential: the workspace and job it is for. */
  stateScope?: StateScope;
}

/** Signs and verifies the service's own HS256 bearer tokens. */
export class TokenSigner {
  private readonly key: Uint8Array;

  constructor(
    key: string,
    private readonly adminGroup: string,
  ) {
    this.key = new TextEncoder().encode(key);
  }

  async sign(claims: TokenClaims): Promise<{ token: string; id: string }> {
    const id = claims.tracked?.id ?? randomUUID();
    const payload: JWTPayload = { groups: [...claims.groups] };
    if (claims.tracked !== undefined) payload[trackedClaim] = claims.tracked.kind;
    if (claims.stateScope !== undefined) payload[stateClaim] = { ...claims.stateScope };
    if (claims.email !== undefined) payload.email = claims.email;
    if (claims.name !== undefined) payload.name = claims.name;
    // One clock reading for both, so that exp - iat is exactly the lifetime.
    const issuedAt = Math.floor(Date.now() / 1000);
    let jwt = new SignJWT(payload)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(tokenIssuer)
      .setSubject(claims.subject)
      .setJti(id)
      .setIssuedAt(issuedAt);
    const expiries = [
      ...(claims.ttlSeconds === undefined ? [] : [issuedAt + claims.ttlSeconds]),
      ...(claims.notAfter === undefined ? [] : [Math.floor(claims.notAfter.getTime() / 1000)]),
    ];
    if (expiries.length > 0) jwt = jwt.setExpirationTime(Math.min(...expiries));
    return { token: await jwt.sign(this.key), id };
  }

  /** The caller a token speaks for; throws InvalidTokenError when it is not one of ours or has expired. */
  verify(token: string): VerifiedToken {
    let payload: JWTPayload;
    try {
      payload = verifyHs256(token, this.key, tokenIssuer);
    } catch (error) {
      if (!(error instanceof Hs256Failure)) throw new InvalidTokenError('the token is not valid');
      // Said plainly, so a token minted for another server's store is recognised at once.
      if (error.reason === 'expired' || error.reason === 'signature') throw new InvalidTokenError(error.message);
      throw new InvalidTokenError(`the token is not valid: ${error.message}`);
    }
    const scope = payload[stateClaim];
    if (scope !== undefined) {
      const stateScope = scope as Partial<Record<keyof StateScope, unknown>>;
      const { organizationId, workspaceId, jobReference } = stateScope;
      if (typeof organizationId !== 'string' || typeof workspaceId !== 'string' || typeof jobReference !== 'string')
        throw new InvalidTokenError('the token is not valid');
      return {
        caller: callerFromClaims(payload, this.adminGroup, { kind: 'stateCredential' }),
        tracked: undefined,
        stateScope: { organizationId, workspaceId, jobReference },
      };
    }
    const kind = payload[trackedClaim];
    if (kind === undefined) return { caller: callerFromClaims(payload, this.adminGroup), tracked: undefined };
    if (!isTrackedKind(kind) || typeof payload.jti !== 'string') throw new InvalidTokenError('the token is not valid');
    return {
      caller: callerFromClaims(payload, this.adminGroup, { trackedId: payload.jti, kind: kind === 'team' ? 'teamToken' : 'personalToken' }),
      tracked: { id: payload.jti, kind },
    };
  }
}

export class InvalidTokenError extends Error {}

/** How far ahead of this server's clock an issuer's clock may run. */
export const clockSkewSeconds = 60;

/**
 * Reads the identity claims of a verified token, of this service or of the OIDC issuer. The groups
 * are at `groupsClaim`, a claim's name or a dotted path into nested claims (claimAt). A missing
 * groups claim means no groups (Terrakube answered 500 to such tokens); a single string is taken
 * as one group, as some identity providers send it. A token issued further in the future than
 * clock skew explains is refused: jose checks `iat` only against a maximum age, and such a token
 * was signed with a clock, or by someone, that cannot be trusted.
 */
export function callerFromClaims(
  payload: JWTPayload,
  adminGroup: string,
  { groupsClaim = 'groups', trackedId, kind = 'signed' }: { groupsClaim?: string; trackedId?: string; kind?: TokenKind } = {},
): Caller {
  if (typeof payload.sub !== 'string' || payload.sub === '') throw new InvalidTokenError('the token has no subject');
  if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + clockSkewSeconds) {
    throw new InvalidTokenError('the token was issued in the future');
  }
  const raw = claimAt(payload, groupsClaim);
  const groups = Array.isArray(raw) ? raw.filter((g): g is string => typeof g === 'string') : typeof raw === 'string' ? [raw] : [];
  // Claims reach SQL (group names, audit columns, token ids), where PostgreSQL refuses a NUL and SQLite
  // does not: such a token is refused alike on both.
  const claims = [payload.sub, payload.email, payload.name, payload.jti, trackedId, ...groups];
  if (claims.some((claim) => typeof claim === 'string' && claim.includes('\u0000')))
    throw new InvalidTokenError('the token holds a NUL character');
  return {
    subject: payload.sub,
    email: typeof payload.email === 'string' && payload.email !== '' ? payload.email : undefined,
    name: typeof payload.name === 'string' ? payload.name : undefined,
    groups,
    isAdministrator: groups.includes(adminGroup),
    // jose has checked that exp, when present, is a number.
    token: { kind, trackedId, expiresAt: typeof payload.exp === 'number' ? new Date(payload.exp * 1000) : undefined },
  };
}

/**
 * The value of a claim named by `path`: the claim of that very name (a namespaced claim such as
 * `https://example.com/groups` holds dots), else, a dot at a time, one nested in an object claim:
 * Keycloak's `realm_access.roles`, `resource_access.<client>.roles` (a client id may hold dots too).
 */
export function claimAt(claims: Readonly<Record<string, unknown>>, path: string): unknown {
  if (Object.hasOwn(claims, path)) return claims[path];
  for (let dot = path.indexOf('.'); dot > 0; dot = path.indexOf('.', dot + 1)) {
    const head = path.slice(0, dot);
    const nested = Object.hasOwn(claims, head) ? claims[head] : undefined;
    if (typeof nested !== 'object' || nested === null || Array.isArray(nested)) continue;
    const found = claimAt(nested as Record<string, unknown>, path.slice(dot + 1));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Whether a token, read without verifying it, claims to be a state credential (it is then verified as one). */
export function isStateCredential(token: string): boolean {
  try {
    return decodeJwt(token)[stateClaim] !== undefined;
  } catch {
    return false;
  }
}

/** How long a state credential lives unless its minter says otherwise: longer than a run's longest step. */
export const stateCredentialSeconds = 12 * 3600;

/**
 * A short-lived credential for one job's Terraform: Basic auth's password at the state backend of
 * one workspace, where it may read, lock and write the state (not force-unlock or roll back), and
 * refused everywhere else. It names no groups and is not recorded: it cannot be revoked, so it lives
 * `ttlSeconds` (12 hours by default) and no longer.
 */
export async function mintStateCredential(
  signer: TokenSigner,
  scope: StateScope,
  ttlSeconds: number = stateCredentialSeconds,
): Promise<string> {
  const { token } = await signer.sign({ subject: `job:${scope.jobReference}`, groups: [], ttlSeconds, stateScope: scope });
  return token;
}

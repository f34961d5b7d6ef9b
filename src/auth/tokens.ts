import { randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Caller } from './caller.js';

/** Issuer of every token this service signs. */
export const tokenIssuer = 'stratum';

/** The claim that marks a token recorded in the database, which can therefore be revoked. */
const trackedClaim = 'stratum_token';
export type TrackedKind = 'team' | 'personal';

/** A verified token: who it speaks for, and its record when it is a revocable API token. */
export interface VerifiedToken {
  caller: Caller;
  tracked: { id: string; kind: TrackedKind } | undefined;
}

export interface TokenClaims {
  subject: string;
  email?: string;
  name?: string;
  groups: readonly string[];
  /** Lifetime in seconds; undefined for a token that never expires. */
  ttlSeconds: number | undefined;
  /** For an API token: its record's id, which becomes the jti, and its kind. */
  tracked?: { id: string; kind: TrackedKind };
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
    if (claims.email !== undefined) payload.email = claims.email;
    if (claims.name !== undefined) payload.name = claims.name;
    let jwt = new SignJWT(payload)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(tokenIssuer)
      .setSubject(claims.subject)
      .setJti(id)
      .setIssuedAt();
    if (claims.ttlSeconds !== undefined) jwt = jwt.setExpirationTime(Math.floor(Date.now() / 1000) + claims.ttlSeconds);
    return { token: await jwt.sign(this.key), id };
  }

  /** The caller a token speaks for; throws InvalidTokenError when it is not one of ours or has expired. */
  async verify(token: string): Promise<VerifiedToken> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], issuer: tokenIssuer }));
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw new InvalidTokenError('the token has expired');
      throw new InvalidTokenError('the token is not valid');
    }
    const caller = callerFromClaims(payload, this.adminGroup);
    const kind = payload[trackedClaim];
    if (kind === undefined) return { caller, tracked: undefined };
    if ((kind !== 'team' && kind !== 'personal') || typeof payload.jti !== 'string') throw new InvalidTokenError('the token is not valid');
    return { caller, tracked: { id: payload.jti, kind } };
  }
}

export class InvalidTokenError extends Error {}

/**
 * Reads the identity claims. A missing `groups` claim means no groups (Terrakube answered 500 to
 * such tokens); a single string is taken as one group, as some identity providers send it.
 */
export function callerFromClaims(payload: JWTPayload, adminGroup: string, groupsClaim = 'groups'): Caller {
  if (typeof payload.sub !== 'string' || payload.sub === '') throw new InvalidTokenError('the token has no subject');
  const raw = payload[groupsClaim];
  const groups = Array.isArray(raw)
    ? raw.filter((g): g is string => typeof g === 'string')
    : typeof raw === 'string'
      ? [raw]
      : [];
  return {
    subject: payload.sub,
    email: typeof payload.email === 'string' && payload.email !== '' ? payload.email : undefined,
    name: typeof payload.name === 'string' ? payload.name : undefined,
    groups,
    isAdministrator: groups.includes(adminGroup),
  };
}

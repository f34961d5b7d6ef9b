import type { VerifiedToken } from './tokens.js';

/** How long a verification is reused: well inside a token's lifetime, and bounded for memory. */
const reuseMs = 60_000;
/** Tokens remembered at once; the oldest goes first. */
const capacity = 1000;
/** Longer tokens (16 KiB fit in a header) are verified every time rather than held. */
const longestCachedToken = 4096;

/**
 * The service's own tokens verified lately, by their text: a client sends the same token with every
 * request, and checking its signature and claims again each time was a tenth of a point read. A
 * token is reused until it expires, and at most a minute; what can change before that (an API
 * token's revocation) is checked on every request by the caller of this cache, not stored here.
 */
export class VerifiedTokens {
  private readonly entries = new Map<string, { verified: VerifiedToken; notAfterMs: number }>();

  get(token: string, nowMs = Date.now()): VerifiedToken | undefined {
    const entry = this.entries.get(token);
    if (entry === undefined) return undefined;
    if (nowMs >= entry.notAfterMs) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.verified;
  }

  remember(token: string, verified: VerifiedToken, nowMs = Date.now()): void {
    if (token.length > longestCachedToken) return;
    const expiresMs = verified.caller.token.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
    if (this.entries.size >= capacity) this.entries.delete(this.entries.keys().next().value ?? '');
    this.entries.set(token, { verified: Object.freeze(verified), notAfterMs: Math.min(nowMs + reuseMs, expiresMs) });
  }
}

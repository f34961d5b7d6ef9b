import { decodeJwt } from 'jose';
import type { ApiTokens } from './api-tokens.js';
import { credentialCaller, type Caller } from './caller.js';
import type { OidcVerifier } from './oidc.js';
import { InvalidTokenError, isStateCredential, tokenIssuer, type StateScope, type TokenSigner, type VerifiedToken } from './tokens.js';
import { VerifiedTokens } from './verified-tokens.js';

/**
 * Turns a bearer token into a caller. The unverified `iss` only chooses the verifier: tokens this
 * service signed (CLI, team and personal tokens), or the configured OIDC issuer's. Everything else
 * is refused. Team and personal tokens must also still be live in the database, with every
 * token they were created from; their use is recorded.
 */
export class Authenticator {
  private readonly verifiedTokens = new VerifiedTokens();

  constructor(
    private readonly signer: TokenSigner,
    private readonly apiTokens: ApiTokens,
    private readonly oidc: OidcVerifier | undefined,
  ) {}

  /**
   * `context` goes into the log lines written on the way, such as the request's id. The caller of a
   * token verified lately that needs no further check (not an API token, whose revocation is looked
   * up every time) comes back at once rather than as a promise: most requests carry one.
   */
  authenticate(token: string, context: Record<string, unknown> = {}): Caller | Promise<Caller> {
    const verified = this.verifiedTokens.get(token);
    if (verified === undefined) return this.verify(token, context);
    return verified.tracked === undefined ? verified.caller : this.ownTokenCaller(token, verified, context);
  }

  /**
   * For the state backend's routes: a state credential's workspace and job, or the caller of any
   * other token. Everywhere else a state credential is refused.
   */
  async authenticateState(token: string, context: Record<string, unknown> = {}): Promise<{ caller: Caller; scope?: StateScope }> {
    if (this.verifiedTokens.get(token) === undefined && isStateCredential(token)) {
      const { stateScope } = this.signer.verify(token);
      if (stateScope !== undefined) return { caller: stateCredentialCaller(stateScope), scope: stateScope };
    }
    return { caller: await this.authenticate(token, context) };
  }

  private async verify(token: string, context: Record<string, unknown>): Promise<Caller> {
    let issuer: unknown;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      throw new InvalidTokenError('the token is not a JWT');
    }
    if (issuer === tokenIssuer) {
      const own = this.signer.verify(token);
      if (own.stateScope !== undefined)
        throw new InvalidTokenError("the token is a state credential, good only at its workspace's state backend");
      this.verifiedTokens.remember(token, own);
      return this.ownTokenCaller(token, own, context);
    }
    if (this.oidc !== undefined && issuer === this.oidc.issuer) return this.oidc.verify(token);
    throw new InvalidTokenError(
      `the token is not valid: its issuer ${describeIssuer(issuer)} is neither this server ("${tokenIssuer}")${this.oidc === undefined ? '' : ' nor the configured OIDC issuer'}`,
    );
  }

  /** The caller of a verified token of this service's; an API token must also still be live. */
  private async ownTokenCaller(token: string, { caller, tracked }: VerifiedToken, context: Record<string, unknown>): Promise<Caller> {
    if (tracked !== undefined) {
      if (!(await this.apiTokens.isLive(tracked.id, token))) throw new InvalidTokenError('the token has been revoked or has expired');
      await this.apiTokens.recordUse(tracked.id, context);
    }
    return caller;
  }
}

/** The unverified issuer a token names, made safe for a header and a log line. */
function describeIssuer(issuer: unknown): string {
  if (typeof issuer !== 'string') return issuer === undefined ? '(none)' : '(not a string)';
  return `"${issuer
    .replace(/[^\x20-\x7e]/g, '?')
    .replace(/"/g, "'")
    .slice(0, 80)}"`;
}

/** The caller a job's state credential stands for: the job itself, with no groups and no other reach. */
const stateCredentialCaller = (scope: StateScope): Caller => credentialCaller(`job:${scope.jobReference}`, 'stateCredential');

import { decodeJwt } from 'jose';
import type { ApiTokens } from './api-tokens.js';
import type { Caller } from './caller.js';
import type { OidcVerifier } from './oidc.js';
import { InvalidTokenError, tokenIssuer, type TokenSigner } from './tokens.js';

/**
 * Turns a bearer token into a caller. The unverified `iss` only chooses the verifier: tokens this
 * service signed (CLI, team and personal tokens), or the configured OIDC issuer's. Everything else
 * is refused. Team and personal tokens must also still be live in the database.
 */
export class Authenticator {
  constructor(
    private readonly signer: TokenSigner,
    private readonly apiTokens: ApiTokens,
    private readonly oidc: OidcVerifier | undefined,
  ) {}

  async authenticate(token: string): Promise<Caller> {
    let issuer: unknown;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      throw new InvalidTokenError('the token is not a JWT');
    }
    if (issuer === tokenIssuer) {
      const { caller, tracked } = await this.signer.verify(token);
      if (tracked !== undefined && !(await this.apiTokens.isLive(tracked.id, token))) {
        throw new InvalidTokenError('the token has been revoked or has expired');
      }
      return caller;
    }
    if (this.oidc !== undefined && issuer === this.oidc.issuer) return this.oidc.verify(token);
    throw new InvalidTokenError('the token is not valid');
  }
}

import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Caller } from './caller.js';
import { callerFromClaims, InvalidTokenError } from './tokens.js';

export interface OidcSettings {
  issuer: string;
  /** The audience tokens must name; undefined accepts any audience. */
  audience: string | undefined;
  groupsClaim: string;
}

/** The identity provider could not be reached to verify a token: the request may succeed later (503). */
export class IdentityProviderUnavailableError extends Error {}

/** Signature algorithms an identity provider signs with: asymmetric only, so no shared secret can forge a token. */
const algorithms = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** How soon after a fetch an unknown key id may trigger another fetch of the key set (key rotation). */
const keyRefetchCooldownMs = 1000;
const fetchTimeoutMs = 5000;

/**
 * Verifies tokens of one OpenID Connect issuer. The key set's address comes from the issuer's
 * discovery document, fetched on first use and again after a failure; jose caches the keys and
 * fetches them again when a token names a key it has not seen, which is how key rotation arrives.
 */
export class OidcVerifier {
  private keys: Promise<JWTVerifyGetKey> | undefined;

  constructor(
    private readonly settings: OidcSettings,
    private readonly adminGroup: string,
  ) {}

  get issuer(): string {
    return this.settings.issuer;
  }

  async verify(token: string): Promise<Caller> {
    const keys = await this.keySet();
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.settings.issuer,
        algorithms,
        ...(this.settings.audience === undefined ? {} : { audience: this.settings.audience }),
      });
      return callerFromClaims(payload, this.adminGroup, { groupsClaim: this.settings.groupsClaim });
    } catch (error) {
      if (error instanceof InvalidTokenError) throw error;
      if (error instanceof errors.JWTExpired) throw new InvalidTokenError('the token has expired');
      if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError) || error.code === 'ERR_JOSE_GENERIC') {
        throw new IdentityProviderUnavailableError('the identity provider key set could not be fetched');
      }
      throw new InvalidTokenError('the token is not valid');
    }
  }

  private keySet(): Promise<JWTVerifyGetKey> {
    this.keys ??= this.discover().catch((error: unknown) => {
      // Forget the failure, so the next request tries the issuer again.
      this.keys = undefined;
      throw error;
    });
    return this.keys;
  }

  private async discover(): Promise<JWTVerifyGetKey> {
    const address = `${this.settings.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    let jwksUri: unknown;
    try {
      const response = await fetch(address, { signal: AbortSignal.timeout(fetchTimeoutMs), headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`status ${response.status}`);
      const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
      if (document.issuer !== this.settings.issuer) throw new Error('the discovery document names another issuer');
      jwksUri = document.jwks_uri;
    } catch (error) {
      throw new IdentityProviderUnavailableError(
        `OIDC discovery at ${address} failed: ${error instanceof Error ? error.message : 'unknown error'}`,
      );
    }
    if (typeof jwksUri !== 'string') throw new IdentityProviderUnavailableError(`OIDC discovery at ${address} gave no jwks_uri`);
    return createRemoteJWKSet(new URL(jwksUri), { cooldownDuration: keyRefetchCooldownMs, timeoutDuration: fetchTimeoutMs });
  }
}

import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Caller } from './caller.js';
import { callerFromClaims, claimAt, clockSkewSeconds, InvalidTokenError } from './tokens.js';

export interface OidcSettings {
  issuer: string;
  /** The audience tokens must name; undefined accepts any audience. */
  audience: string | undefined;
  /** Where a token holds its groups: a claim's name, or a dotted path into nested claims (`realm_access.roles`). */
  groupsClaim: string;
}

/** The identity provider could not be reached to verify a token: the request may succeed later (503). */
export class IdentityProviderUnavailableError extends Error {}

/** Signature algorithms an identity provider signs with: asymmetric only, so no shared secret can forge a token. */
const algorithms = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** How soon after a fetch an unknown key id may trigger another fetch of the key set (key rotation). */
const keyRefetchCooldownMs = 1000;
/**
 * How long a fetched key set is trusted without a token asking for an unknown key: a key the provider
 * withdraws stops being accepted at the next fetch, at the latest this long after the last one.
 */
const keySetMaxAgeMs = 10 * 60_000;
const fetchTimeoutMs = 5000;

/**
 * Verifies tokens of one OpenID Connect issuer. The key set's address comes from the issuer's
 * discovery document, fetched on first use and again after a failure; jose caches the keys and
 * fetches them again when a token names a key it has not seen, which is how key rotation arrives.
 */
export class OidcVerifier {
  private keys: Promise<JWTVerifyGetKey> | undefined;
  private firstTokenSeen = false;
  private overageSeen = false;

  constructor(
    private readonly settings: OidcSettings,
    private readonly adminGroup: string,
    /** Told, once each, what an operator setting up the provider must hear: a groups claim the tokens do not hold. */
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  get issuer(): string {
    return this.settings.issuer;
  }

  async verify(token: string): Promise<Caller> {
    const keys = await this.keySet();
    try {
      // Providers stamp `nbf` with their own clock (Entra ID sets it to `iat`), so a token that is
      // valid from a second ahead of this server's clock must not be refused: `nbf` gets the same
      // allowance as `iat`. The tolerance would stretch `exp` too, which stays exact below.
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.settings.issuer,
        algorithms,
        clockTolerance: clockSkewSeconds,
        ...(this.settings.audience === undefined ? {} : { audience: this.settings.audience }),
      });
      if (typeof payload.exp === 'number' && payload.exp <= Date.now() / 1000) throw new InvalidTokenError('the token has expired');
      const caller = callerFromClaims(payload, this.adminGroup, { groupsClaim: this.settings.groupsClaim, kind: 'oidc' });
      this.checkGroupsClaim(payload);
      return caller;
    } catch (error) {
      if (error instanceof InvalidTokenError) throw error;
      if (error instanceof errors.JWTExpired) throw new InvalidTokenError('the token has expired');
      if (error instanceof errors.JWTClaimValidationFailed) throw new InvalidTokenError(claimProblem(error));
      if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError) || error.code === 'ERR_JOSE_GENERIC') {
        throw new IdentityProviderUnavailableError('the identity provider key set could not be fetched');
      }
      throw new InvalidTokenError('the token is not valid');
    }
  }

  /**
   * Says, once, when the first token has no groups where STRATUM_OIDC_GROUPS_CLAIM looks (everyone
   * would sign in without a team: the usual mistake when setting a provider up), and when a token
   * holds Entra ID's group overage instead of its groups, which Stratum does not follow.
   */
  private checkGroupsClaim(payload: Readonly<Record<string, unknown>>): void {
    const claim = this.settings.groupsClaim;
    const overage = this.overageSeen ? undefined : claimAt(payload, '_claim_names');
    if (typeof overage === 'object' && overage !== null && Object.hasOwn(overage, claim)) {
      this.overageSeen = true;
      this.warn(
        `a token from ${this.settings.issuer} carries Entra ID's group overage for "${claim}" (more groups than a token holds) instead of its groups; Stratum does not ask Microsoft Graph for them, so that person has no groups here: assign the groups to the application ("Groups assigned to the application") so that the token holds them`,
      );
    }
    if (this.firstTokenSeen) return;
    this.firstTokenSeen = true;
    if (claimAt(payload, claim) === undefined)
      this.warn(
        `the first token from ${this.settings.issuer} has no "${claim}" claim (STRATUM_OIDC_GROUPS_CLAIM): its holder has no groups, and no team reaches them; it holds ${Object.keys(payload).sort().join(', ')}. A dotted name reads a nested claim, such as realm_access.roles (Keycloak)`,
      );
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
    return createRemoteJWKSet(new URL(jwksUri), {
      cooldownDuration: keyRefetchCooldownMs,
      cacheMaxAge: keySetMaxAgeMs,
      timeoutDuration: fetchTimeoutMs,
    });
  }
}

/**
 * Why a claim was refused, in the words an operator setting up a provider needs: a wrong audience is
 * the usual mistake (Keycloak's default `account`, an Entra ID token for Microsoft Graph).
 */
function claimProblem({ claim, reason }: errors.JWTClaimValidationFailed): string {
  if (reason === 'missing') return `the token has no ${claim} claim`;
  if (claim === 'aud') return 'the token is for another audience than this service (STRATUM_OIDC_AUDIENCE)';
  if (claim === 'nbf') return 'the token is not valid yet (nbf)';
  return `the token's ${claim} claim is not valid`;
}

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import * as client from 'openid-client';

/** A person who can sign in at the provider, and what its tokens say about them. */
export interface Account {
  email: string;
  groups: string[];
}

/** What an authorization-code sign-in gave the relying party. */
export interface SignedIn {
  accessToken: string;
  idToken: string | undefined;
}

/** The client Terrakube's web UI registers: public (no secret), so PKCE is what protects its codes. */
const clientId = 'terrakube-app';
const redirectUri = 'http://127.0.0.1:3000/callback';

/**
 * panva's certified OpenID Connect provider on 127.0.0.1, configured as a deployment for Stratum
 * would be: JWT access tokens for one resource (its audience), the user's groups and email in them,
 * a public client that must use PKCE. Login and consent are its own interaction endpoints, which a
 * test drives over HTTP as a browser would (`signIn`). Its signing keys can be rotated, and it counts
 * the requests for its discovery document and key set.
 */
export class OpenIdProvider {
  url = '';
  /** Requests for the discovery document and the key set, by anyone. */
  readonly fetches = { discovery: 0, keys: 0 };
  /** Access tokens live this long (seconds). */
  accessTokenSeconds = 300;
  /** When set, access tokens are stamped valid only from this many seconds after their issue. */
  notBeforeSeconds: number | undefined;
  private readonly accounts = new Map<string, Account>();
  private keys: JWK[] = [];
  private provider: Provider | undefined;
  private configuration: client.Configuration | undefined;
  private readonly server = http.createServer((request, response) => {
    this.handle(request, response).catch((error: unknown) => {
      response.statusCode = 500;
      response.end(error instanceof Error ? error.message : 'failed');
    });
  });

  /** @param resource the resource indicator (and audience) of Stratum's API at this provider. */
  constructor(readonly resource: string) {}

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.keys = [await signingKey()];
    this.provider = this.build();
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  addAccount(subject: string, account: Account): void {
    this.accounts.set(subject, account);
  }

  /** The key ids the key set publishes; the first one signs. */
  get keyIds(): string[] {
    return this.keys.map((key) => String(key.kid));
  }

  /**
   * Rotates the signing key: a new key signs from now on; the old ones stay published (`keep`, as
   * providers do while tokens they signed are alive) or are withdrawn at once.
   */
  async rotateKeys({ keep }: { keep: boolean }): Promise<void> {
    this.keys = [await signingKey(), ...(keep ? this.keys : [])];
    this.provider = this.build();
  }

  /**
   * Signs `subject` in with the authorization-code flow and PKCE, as the web UI does: openid-client
   * builds the authorization request, the "browser" follows the provider's redirects through its
   * login and consent endpoints, and openid-client redeems the code (checking state, PKCE and the ID
   * token) for the tokens. `resource` asks for a token for another audience than Stratum's.
   */
  async signIn(subject: string, { resource = this.resource }: { resource?: string } = {}): Promise<SignedIn> {
    this.configuration ??= await client.discovery(new URL(this.url), clientId, { redirect_uris: [redirectUri] }, client.None(), {
      // The provider listens on loopback without TLS; openid-client marks this deprecated to make it stand out.
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      execute: [client.allowInsecureRequests],
    });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const authorization = client.buildAuthorizationUrl(this.configuration, {
      redirect_uri: redirectUri,
      scope: 'openid email profile groups',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      resource,
    });
    const callback = await new Browser().signIn(authorization, subject, redirectUri);
    const tokens = await client.authorizationCodeGrant(
      this.configuration,
      callback,
      { pkceCodeVerifier: verifier, expectedState: state },
      { resource },
    );
    return { accessToken: tokens.access_token, idToken: tokens.id_token };
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const provider = this.provider;
    if (provider === undefined) throw new Error('the provider has not started');
    const path = new URL(request.url ?? '/', this.url).pathname;
    if (path === '/.well-known/openid-configuration') this.fetches.discovery += 1;
    if (path === '/jwks') this.fetches.keys += 1;
    if (path.startsWith('/interaction/')) await this.interaction(provider, request, response);
    else await provider.callback()(request, response);
  }

  /** The login and consent pages: a POST to `.../login` with `account=`, then to `.../consent`. */
  private async interaction(provider: Provider, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(request, response);
    const action = request.method === 'POST' ? new URL(request.url ?? '/', this.url).pathname.split('/').at(3) : undefined;
    if (action === 'login' && details.prompt.name === 'login') {
      const account = new URLSearchParams(await readBody(request)).get('account') ?? '';
      if (!this.accounts.has(account)) {
        response.writeHead(401, { 'content-type': 'text/plain' }).end('unknown account');
        return;
      }
      await provider.interactionFinished(request, response, { login: { accountId: account } }, { mergeWithLastSubmission: false });
    } else if (action === 'consent' && details.prompt.name === 'consent') {
      const grant = new provider.Grant({ accountId: String(details.session?.accountId), clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      grant.addResourceScope(String(details.params.resource), 'stratum');
      await provider.interactionFinished(
        request,
        response,
        { consent: { grantId: await grant.save() } },
        { mergeWithLastSubmission: true },
      );
    } else {
      // The page a browser shows: what it asks for, and where to post the answer.
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ prompt: details.prompt.name, action: `/interaction/${details.uid}/${details.prompt.name}` }));
    }
  }

  private build(): Provider {
    const configuration: Configuration = {
      clients: [{ client_id: clientId, token_endpoint_auth_method: 'none', redirect_uris: [redirectUri], application_type: 'web' }],
      jwks: { keys: this.keys },
      claims: { openid: ['sub'], email: ['email'], profile: ['name'], groups: ['groups'] },
      cookies: { keys: ['a cookie signing key for the tests'] },
      pkce: { required: () => true },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      findAccount: (_ctx, sub) => {
        const account = this.accounts.get(sub);
        return account === undefined
          ? undefined
          : { accountId: sub, claims: () => ({ sub, email: account.email, groups: account.groups }) };
      },
      // The claims Stratum reads go into the access token, as Dex, Keycloak's mappers and Entra ID put them.
      extraTokenClaims: (_ctx, token) => {
        const account = 'accountId' in token ? this.accounts.get(token.accountId) : undefined;
        return account === undefined ? undefined : { email: account.email, groups: account.groups };
      },
      formats: {
        customizers: {
          jwt: (_ctx: KoaContextWithOIDC, _token: unknown, parts: { payload: Record<string, unknown> }) => {
            if (this.notBeforeSeconds !== undefined) parts.payload.nbf = Number(parts.payload.iat) + this.notBeforeSeconds;
          },
        },
      },
      features: {
        devInteractions: { enabled: false },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => this.resource,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, indicator) => {
            if (!indicator.startsWith('https://')) throw new errors.InvalidTarget();
            return { scope: 'stratum', audience: indicator, accessTokenFormat: 'jwt', accessTokenTTL: this.accessTokenSeconds };
          },
        },
      },
    };
    return new Provider(this.url, configuration);
  }
}

/** A new RS256 key pair as a private JWK, which the provider signs with and publishes the public half of. */
async function signingKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString()));
    request.on('error', reject);
  });
}

/** A browser, as far as a sign-in needs one: it follows redirects, keeps cookies and submits the two forms. */
class Browser {
  private readonly cookies = new Map<string, string>();

  /** Follows the authorization request to the redirect back to the client, and returns that address. */
  async signIn(start: URL, account: string, redirectUri: string): Promise<URL> {
    let next: { url: URL; form?: Record<string, string> } = { url: start };
    for (let step = 0; step < 20; step += 1) {
      if (next.url.href.startsWith(redirectUri)) return next.url;
      const response = await this.send(next.url, next.form);
      const location = response.headers.get('location');
      if (location !== null) {
        next = { url: new URL(location, next.url) };
        continue;
      }
      if (response.status !== 200) throw new Error(`${next.url.pathname} answered ${response.status}: ${await response.text()}`);
      const page = (await response.json()) as { prompt: string; action: string };
      next = { url: new URL(page.action, next.url), form: page.prompt === 'login' ? { account } : {} };
    }
    throw new Error('the sign-in did not come back to the client');
  }

  private async send(url: URL, form: Record<string, string> | undefined): Promise<Response> {
    const headers: Record<string, string> = { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
    if (form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, {
      method: form === undefined ? 'GET' : 'POST',
      headers,
      body: form === undefined ? null : new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const separator = pair.indexOf('=');
      this.cookies.set(pair.slice(0, separator), pair.slice(separator + 1));
    }
    return response;
  }
}

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { claimAt } from '../src/auth/tokens.ts';
import { assertError, createRecord, describeEachStore, eventually, TestServer, type StoreKind } from './harness.ts';

/**
 * A real OpenID Connect issuer on 127.0.0.1: a discovery document and a key set served over HTTP,
 * signing with its own key pairs. Keys can be added (rotation) and the issuer stopped.
 */
class LocalIssuer {
  url = '';
  private readonly keys: { kid: string; privateKey: CryptoKey; jwk: JWK }[] = [];
  private readonly server = http.createServer((request, response) => {
    const send = (body: unknown) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.url === '/.well-known/openid-configuration') send({ issuer: this.url, jwks_uri: `${this.url}/keys` });
    else if (request.url === '/keys') send({ keys: this.keys.map((k) => k.jwk) });
    else {
      response.writeHead(404);
      response.end();
    }
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    await this.addKey();
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Publishes a new key pair and signs with it from now on. */
  async addKey(): Promise<void> {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const kid = randomUUID();
    this.keys.push({ kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } });
  }

  async sign(
    claims: Record<string, unknown>,
    options: { audience?: string; issuer?: string; expiresIn?: string; issuedAt?: number; key?: CryptoKey; kid?: string } = {},
  ): Promise<string> {
    const current = this.keys.at(-1);
    if (current === undefined) throw new Error('the issuer has no key');
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? current.kid })
      .setIssuer(options.issuer ?? this.url)
      .setSubject(`user-${randomUUID()}`)
      .setAudience(options.audience ?? 'stratum')
      .setIssuedAt(options.issuedAt)
      .setExpirationTime(options.expiresIn ?? '5m')
      .sign(options.key ?? current.privateKey);
  }
}

// One issuer per store's suite; it starts before the suite's server, whose environment names it.
const issuers: Record<StoreKind, LocalIssuer> = { sqlite: new LocalIssuer(), postgres: new LocalIssuer() };

describeEachStore(
  'OIDC sign-in',
  {
    env: async (kind) => {
      await issuers[kind].start();
      return { STRATUM_OIDC_ISSUER: issuers[kind].url, STRATUM_OIDC_AUDIENCE: 'stratum', STRATUM_OIDC_GROUPS_CLAIM: 'roles' };
    },
  },
  (context) => {
    const issuer = issuers[context.kind];
    // Registered after the server's own hook, so the issuer stops once the server has.
    after(async () => {
      await issuer.stop();
    });

    it('accepts the issuer tokens, with groups from the configured claim, next to the service own tokens', async () => {
      const admin = await issuer.sign({ roles: ['STRATUM_ADMIN'], email: 'oidc-admin@example.com' });
      const created = await context.server.post(
        '/api/v1/organization',
        { data: { type: 'organization', attributes: { name: `oidc-${randomUUID()}` } } },
        { token: admin },
      );
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.attributes.createdBy, 'oidc-admin@example.com');
      const organization = created.body.data.id as string;
      const group = `oidc-team-${randomUUID()}`;
      await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: group });
      const member = await issuer.sign({ roles: [group] });
      assert.deepEqual(
        (await context.server.get('/api/v1/organization', { token: member })).body.data.map((o: { id: string }) => o.id),
        [organization],
      );
      // The groups claim is `roles` here: a `groups` claim grants nothing, and no claim at all is no groups, not an error.
      assert.deepEqual(
        (await context.server.get('/api/v1/organization', { token: await issuer.sign({ groups: ['STRATUM_ADMIN'] }) })).body.data,
        [],
      );
      assert.equal((await context.server.get('/api/v1/organization')).status, 200);
    });

    it('refuses tokens for another audience, from another issuer, expired, issued an hour ahead, signed by an unpublished key or with a shared secret', async () => {
      const refused = async (token: string) => {
        const response = await context.server.get('/api/v1/organization', { token });
        assertError(response, 401);
        assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
      };
      await refused(await issuer.sign({ roles: ['STRATUM_ADMIN'] }, { audience: 'someone-else' }));
      await refused(await issuer.sign({ roles: ['STRATUM_ADMIN'] }, { issuer: 'https://elsewhere.example.com' }));
      await refused(await issuer.sign({ roles: ['STRATUM_ADMIN'] }, { expiresIn: '-1m' }));
      // Issued an hour ahead of the server's clock: more than clock skew explains.
      await refused(await issuer.sign({ roles: ['STRATUM_ADMIN'] }, { issuedAt: Math.floor(Date.now() / 1000) + 3600, expiresIn: '2h' }));
      const { privateKey: stranger } = await generateKeyPair('RS256');
      await refused(await issuer.sign({ roles: ['STRATUM_ADMIN'] }, { key: stranger }));
      const symmetric = await new SignJWT({ roles: ['STRATUM_ADMIN'] })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer(issuer.url)
        .setSubject('x')
        .setAudience('stratum')
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode('a shared secret of at least thirty-two bytes'));
      await refused(symmetric);
    });

    it('lets a person signed in for 5 minutes create a personal token for 30 days, as the token pages do', async () => {
      const person = await issuer.sign({ roles: ['someone'] }, { expiresIn: '5m' });
      const created = await context.server.post('/pat/v1', { description: 'laptop', days: 30 }, { token: person });
      assert.equal(created.status, 201, created.text);
      const signIn = Number(decodeJwt(person).exp);
      assert.ok(Number(decodeJwt(String(created.body.token)).exp) > signIn + 29 * 86400);
      assert.ok(Date.parse(String(created.body.expiresAt)) > (signIn + 29 * 86400) * 1000);
    });

    it('follows a key rotation: a token signed with a newly published key is accepted', async () => {
      const before = await issuer.sign({ roles: ['STRATUM_ADMIN'] });
      assert.equal((await context.server.get('/api/v1/organization', { token: before })).status, 200);
      await issuer.addKey();
      const rotated = await issuer.sign({ roles: ['STRATUM_ADMIN'] });
      // The key set is fetched again for an unknown key id only once a cooldown after the last fetch has
      // passed (the README says at most once a second), so the new key may be refused at first.
      await eventually(
        'the token signed with the rotated key to be accepted',
        async () => {
          const response = await context.server.get('/api/v1/organization', { token: rotated });
          assert.equal(response.status, 200, response.text);
        },
        { timeoutMs: 3000 },
      );
      assert.equal((await context.server.get('/api/v1/organization', { token: before })).status, 200);
    });

    it('answers 503 while the issuer cannot be reached, and still accepts the service own tokens', async () => {
      const unreachable = new LocalIssuer();
      await unreachable.start();
      const token = await unreachable.sign({ roles: ['STRATUM_ADMIN'] });
      const url = unreachable.url;
      await unreachable.stop();
      const other = await TestServer.start(context.kind, { STRATUM_OIDC_ISSUER: url, STRATUM_OIDC_AUDIENCE: 'stratum' });
      try {
        assertError(await other.get('/api/v1/organization', { token }), 503);
        // The service's own tokens do not depend on the issuer.
        assert.equal((await other.get('/api/v1/organization')).status, 200);
        // The warning reaches the log asynchronously, not necessarily before the answer does.
        await eventually('the warning in the log', () => {
          assert.ok(
            other.logs.some((line) => line.includes('identity provider unavailable')),
            'the operator sees why',
          );
        });
      } finally {
        await other.stop();
      }
    });
  },
);

describe('a groups claim at a path (STRATUM_OIDC_GROUPS_CLAIM with dots)', () => {
  it('reads the claim of that very name first, then nested objects a dot at a time, dotted keys included', () => {
    const claims = {
      'https://example.com/groups': ['namespaced'],
      realm_access: { roles: ['realm-role'] },
      resource_access: { 'my.client': { roles: ['client-role'] }, my: { other: 1 } },
      'a.b': 'literal',
      a: { b: 'nested' },
    };
    assert.deepEqual(claimAt(claims, 'https://example.com/groups'), ['namespaced']);
    assert.deepEqual(claimAt(claims, 'realm_access.roles'), ['realm-role']);
    assert.deepEqual(claimAt(claims, 'resource_access.my.client.roles'), ['client-role']);
    assert.equal(claimAt(claims, 'a.b'), 'literal');
    for (const path of ['realm_access.missing', 'realm_access', 'resource_access.my.other.roles', '.roles', 'realm_access.', 'constructor'])
      assert.equal(
        path === 'realm_access' ? typeof claimAt(claims, path) : claimAt(claims, path),
        path === 'realm_access' ? 'object' : undefined,
        path,
      );
  });
});

const nestedIssuers: Record<StoreKind, LocalIssuer> = { sqlite: new LocalIssuer(), postgres: new LocalIssuer() };

describeEachStore(
  'OIDC sign-in with groups in a nested claim',
  {
    env: async (kind) => {
      await nestedIssuers[kind].start();
      return { STRATUM_OIDC_ISSUER: nestedIssuers[kind].url, STRATUM_OIDC_GROUPS_CLAIM: 'realm_access.roles' };
    },
  },
  (context) => {
    const issuer = nestedIssuers[context.kind];
    after(async () => {
      await issuer.stop();
    });

    it('warns once when the first token has no groups where the setting looks, and reads Keycloak realm roles as groups', async () => {
      const lost = await issuer.sign({ groups: ['STRATUM_ADMIN'] });
      assert.deepEqual((await context.server.get('/api/v1/organization', { token: lost })).body.data, []);
      await eventually('the warning in the log', () => {
        const warnings = context.server.logs.filter((line) => line.includes('has no \\"realm_access.roles\\" claim'));
        assert.equal(warnings.length, 1, context.server.logs.slice(-5).join('\n'));
        assert.match(warnings[0] ?? '', /"level":40/);
        assert.ok(!warnings[0]?.includes('STRATUM_ADMIN'), 'names the claims a token holds, never their values');
      });
      const admin = await issuer.sign({ realm_access: { roles: ['offline_access', 'STRATUM_ADMIN'] } });
      const created = await context.server.post(
        '/api/v1/organization',
        { data: { type: 'organization', attributes: { name: `realm-${randomUUID()}` } } },
        { token: admin },
      );
      assert.equal(created.status, 201, created.text);
      await issuer.sign({ groups: [] }).then((token) => context.server.get('/api/v1/organization', { token }));
      assert.equal(context.server.logs.filter((line) => line.includes('has no \\"realm_access.roles\\" claim')).length, 1);
    });

    it("warns once of Entra ID's group overage, which it does not follow", async () => {
      const token = await issuer.sign({
        _claim_names: { 'realm_access.roles': 'src1' },
        _claim_sources: { src1: { endpoint: 'https://graph.example' } },
      });
      assert.deepEqual((await context.server.get('/api/v1/organization', { token })).body.data, []);
      await context.server.get('/api/v1/organization', { token: await issuer.sign({ _claim_names: { 'realm_access.roles': 'src1' } }) });
      await eventually('the warning in the log', () => {
        assert.equal(context.server.logs.filter((line) => line.includes('group overage')).length, 1);
      });
    });
  },
);

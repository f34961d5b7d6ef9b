import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { assertError, createRecord, storeKinds, TestServer } from './harness.ts';

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

  async sign(claims: Record<string, unknown>, options: { audience?: string; issuer?: string; expiresIn?: string; key?: CryptoKey; kid?: string } = {}): Promise<string> {
    const current = this.keys.at(-1);
    if (current === undefined) throw new Error('the issuer has no key');
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? current.kid })
      .setIssuer(options.issuer ?? this.url)
      .setSubject(`user-${randomUUID()}`)
      .setAudience(options.audience ?? 'stratum')
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '5m')
      .sign(options.key ?? current.privateKey);
  }
}

for (const kind of storeKinds) {
  describe(`OIDC sign-in (${kind})`, () => {
    const issuer = new LocalIssuer();
    let server: TestServer;

    before(async () => {
      await issuer.start();
      server = await TestServer.start(kind, {
        STRATUM_OIDC_ISSUER: issuer.url,
        STRATUM_OIDC_AUDIENCE: 'stratum',
        STRATUM_OIDC_GROUPS_CLAIM: 'roles',
      });
    });
    after(async () => {
      await server.stop();
      await issuer.stop();
    });

    it('accepts the issuer tokens, with groups from the configured claim, next to the service own tokens', async () => {
      const admin = await issuer.sign({ roles: ['STRATUM_ADMIN'], email: 'oidc-admin@example.com' });
      const created = await server.post('/api/v1/organization', { data: { type: 'organization', attributes: { name: `oidc-${randomUUID()}` } } }, { token: admin });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.attributes.createdBy, 'oidc-admin@example.com');
      const organization = created.body.data.id as string;
      const group = `oidc-team-${randomUUID()}`;
      await createRecord(server, `/api/v1/organization/${organization}/team`, 'team', { name: group });
      const member = await issuer.sign({ roles: [group] });
      assert.deepEqual((await server.get('/api/v1/organization', { token: member })).body.data.map((o: { id: string }) => o.id), [organization]);
      // The groups claim is `roles` here: a `groups` claim grants nothing, and no claim at all is no groups, not an error.
      assert.deepEqual((await server.get('/api/v1/organization', { token: await issuer.sign({ groups: ['STRATUM_ADMIN'] }) })).body.data, []);
      assert.equal((await server.get('/api/v1/organization')).status, 200);
    });

    it('refuses tokens for another audience, from another issuer, expired, signed by an unpublished key or with a shared secret', async () => {
      const refused = async (token: string) => {
        const response = await server.get('/api/v1/organization', { token });
        assertError(response, 401);
        assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
      };
      await refused(await issuer.sign({ roles: ['STRATUM_ADMIN'] }, { audience: 'someone-else' }));
      await refused(await issuer.sign({ roles: ['STRATUM_ADMIN'] }, { issuer: 'https://elsewhere.example.com' }));
      await refused(await issuer.sign({ roles: ['STRATUM_ADMIN'] }, { expiresIn: '-1m' }));
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

    it('follows a key rotation: a token signed with a newly published key is accepted', async () => {
      const before = await issuer.sign({ roles: ['STRATUM_ADMIN'] });
      assert.equal((await server.get('/api/v1/organization', { token: before })).status, 200);
      await issuer.addKey();
      // The key set is fetched again for an unknown key id once the cooldown after the last fetch has passed.
      await sleep(1100);
      const rotated = await issuer.sign({ roles: ['STRATUM_ADMIN'] });
      const response = await server.get('/api/v1/organization', { token: rotated });
      assert.equal(response.status, 200, response.text);
      assert.equal((await server.get('/api/v1/organization', { token: before })).status, 200);
    });

    it('answers 503 while the issuer cannot be reached, and still accepts the service own tokens', async () => {
      const unreachable = new LocalIssuer();
      await unreachable.start();
      const token = await unreachable.sign({ roles: ['STRATUM_ADMIN'] });
      const url = unreachable.url;
      await unreachable.stop();
      const other = await TestServer.start(kind, { STRATUM_OIDC_ISSUER: url, STRATUM_OIDC_AUDIENCE: 'stratum' });
      try {
        assertError(await other.get('/api/v1/organization', { token }), 503);
        // The service's own tokens do not depend on the issuer.
        assert.equal((await other.get('/api/v1/organization')).status, 200);
        assert.ok(other.logs.some((line) => line.includes('identity provider unavailable')), 'the operator sees why');
      } finally {
        await other.stop();
      }
    });
  });
}

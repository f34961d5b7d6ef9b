import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { createRecord, describeEachStore, type StoreKind, type TestServer } from './harness.ts';
import { OpenIdProvider } from './openid-provider.ts';

/**
 * Sign-in through a real OpenID provider (panva's oidc-provider, certified) with a real relying party
 * (openid-client) doing what Terrakube's web UI does: the authorization-code flow with PKCE, then
 * every API call with the access token it got. Stratum knows only the issuer's address and the
 * audience; everything else it learns from the provider.
 */

const audience = 'https://stratum.example.com/api';
const providers: Record<StoreKind, OpenIdProvider> = { sqlite: new OpenIdProvider(audience), postgres: new OpenIdProvider(audience) };

/** A refused token: 401, named invalid in WWW-Authenticate, for the reason given, and nothing written. */
async function assertRefused(server: TestServer, token: string, reason: RegExp): Promise<void> {
  const name = `refused-${randomUUID()}`;
  const response = await server.post('/api/v1/organization', { data: { type: 'organization', attributes: { name } } }, { token });
  assert.equal(response.status, 401, response.text);
  assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  assert.match(String(response.body.errors[0].detail), reason);
  assert.equal(await server.countRows('organization', 'name', name), 0);
}

/** How many requests Stratum sent the provider for its discovery document and key set during `work`. */
async function fetchesDuring(provider: OpenIdProvider, work: () => Promise<void>): Promise<{ discovery: number; keys: number }> {
  const before = { ...provider.fetches };
  await work();
  return { discovery: provider.fetches.discovery - before.discovery, keys: provider.fetches.keys - before.keys };
}

async function organizations(server: TestServer, token: string): Promise<string[]> {
  const response = await server.get('/api/v1/organization', { token });
  assert.equal(response.status, 200, response.text);
  return (response.body.data as { id: string }[]).map((o) => o.id);
}

describeEachStore(
  'Sign-in through an OpenID provider',
  {
    env: async (kind) => {
      await providers[kind].start();
      return { STRATUM_OIDC_ISSUER: providers[kind].url, STRATUM_OIDC_AUDIENCE: audience };
    },
  },
  (context) => {
    const provider = providers[context.kind];
    after(async () => {
      await provider.stop();
    });

    it('an administrator signed in with the code flow and PKCE writes with the access token; the issuer is discovered and its keys fetched once', async () => {
      provider.addAccount('ada', { email: 'ada@example.com', groups: ['STRATUM_ADMIN'] });
      provider.addAccount('bob', { email: 'bob@example.com', groups: ['STRATUM_ADMIN'] });
      const ada = await provider.signIn('ada');
      const bob = await provider.signIn('bob');
      const claims = decodeJwt(ada.accessToken);
      assert.equal(decodeProtectedHeader(ada.accessToken).typ, 'at+jwt', 'a JWT access token, as the UI sends');
      assert.equal(claims.aud, audience);
      assert.equal(claims.iss, provider.url);

      const fetched = await fetchesDuring(provider, async () => {
        const created = await context.server.post(
          '/api/v1/organization',
          { data: { type: 'organization', attributes: { name: `oidc-${randomUUID()}` } } },
          { token: ada.accessToken },
        );
        assert.equal(created.status, 201, created.text);
        assert.equal(created.body.data.attributes.createdBy, 'ada@example.com');
        const tokens = [ada.accessToken, bob.accessToken, ada.accessToken, bob.accessToken];
        await Promise.all(tokens.map((token) => organizations(context.server, token)));
        assert.deepEqual((await context.server.get('/access-token/v1/teams/current-teams', { token: bob.accessToken })).body, {
          groups: ['STRATUM_ADMIN'],
        });
      });
      assert.deepEqual(fetched, { discovery: 1, keys: 1 }, 'discovered once, keys fetched once and cached');
    });

    it('the groups claim makes a member of the organizations whose teams it names, with those teams permissions only', async () => {
      provider.addAccount('root', { email: 'root@example.com', groups: ['STRATUM_ADMIN'] });
      const root = await provider.signIn('root');
      const organization = (await context.server.post(
        '/api/v1/organization',
        { data: { type: 'organization', attributes: { name: `oidc-${randomUUID()}` } } },
        { token: root.accessToken },
      )) as { body: { data: { id: string } } };
      const orgId = organization.body.data.id;
      const writers = `writers-${randomUUID()}`;
      const readers = `readers-${randomUUID()}`;
      await createRecord(context.server, `/api/v1/organization/${orgId}/team`, 'team', { name: writers, manageWorkspace: true });
      await createRecord(context.server, `/api/v1/organization/${orgId}/team`, 'team', { name: readers });
      provider.addAccount('wendy', { email: 'wendy@example.com', groups: [writers, 'unrelated'] });
      provider.addAccount('rita', { email: 'rita@example.com', groups: [readers] });
      provider.addAccount('nobody', { email: 'nobody@example.com', groups: [] });
      const [wendy, rita, nobody] = await Promise.all(['wendy', 'rita', 'nobody'].map((account) => provider.signIn(account)));
      assert.ok(wendy !== undefined && rita !== undefined && nobody !== undefined);

      assert.deepEqual(await organizations(context.server, wendy.accessToken), [orgId]);
      const workspace = { data: { type: 'workspace', attributes: { name: `ws-${randomUUID()}` } } };
      const created = await context.server.post(`/api/v1/organization/${orgId}/workspace`, workspace, { token: wendy.accessToken });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.attributes.createdBy, 'wendy@example.com');

      assert.deepEqual(await organizations(context.server, rita.accessToken), [orgId]);
      const refused = await context.server.post(
        `/api/v1/organization/${orgId}/workspace`,
        { data: { type: 'workspace', attributes: { name: 'not-allowed' } } },
        { token: rita.accessToken },
      );
      assert.equal(refused.status, 403, refused.text);
      // Not an administrator: organizations are an administrator's to create.
      const organizationByMember = await context.server.post(
        '/api/v1/organization',
        { data: { type: 'organization', attributes: { name: `by-member-${randomUUID()}` } } },
        { token: wendy.accessToken },
      );
      assert.equal(organizationByMember.status, 403, organizationByMember.text);

      assert.deepEqual(await organizations(context.server, nobody.accessToken), []);
      assert.equal((await context.server.get(`/api/v1/organization/${orgId}`, { token: nobody.accessToken })).status, 404);
      assert.equal(await context.server.countRows('workspace', 'name', 'not-allowed'), 0);
    });

    it('refuses a token for another audience, from another issuer, expired, or not valid yet; allows a provider clock a little ahead', async () => {
      provider.addAccount('eve', { email: 'eve@example.com', groups: ['STRATUM_ADMIN'] });

      const otherAudience = await provider.signIn('eve', { resource: 'https://other-service.example.com/api' });
      assert.equal(decodeJwt(otherAudience.accessToken).aud, 'https://other-service.example.com/api');
      await assertRefused(context.server, otherAudience.accessToken, /another audience/);

      // A second provider, with its own keys: a real issuer, but not the one Stratum trusts.
      const elsewhere = new OpenIdProvider(audience);
      await elsewhere.start();
      try {
        elsewhere.addAccount('eve', { email: 'eve@example.com', groups: ['STRATUM_ADMIN'] });
        const foreign = await elsewhere.signIn('eve');
        const fetched = await fetchesDuring(provider, () => assertRefused(context.server, foreign.accessToken, /issuer/));
        assert.deepEqual(fetched, { discovery: 0, keys: 0 }, 'a foreign issuer is refused without asking anyone');
        assert.equal(elsewhere.fetches.discovery, 1, 'only the relying party asked the foreign issuer (Stratum never did)');
      } finally {
        await elsewhere.stop();
      }

      provider.accessTokenSeconds = 1;
      try {
        const shortLived = await provider.signIn('eve');
        const expiresMs = Number(decodeJwt(shortLived.accessToken).exp) * 1000;
        await sleep(Math.max(0, expiresMs - Date.now()) + 50);
        await assertRefused(context.server, shortLived.accessToken, /expired/);
      } finally {
        provider.accessTokenSeconds = 300;
      }

      try {
        provider.notBeforeSeconds = 600;
        const early = await provider.signIn('eve');
        await assertRefused(context.server, early.accessToken, /not valid yet/);
        // A provider whose clock runs 30 s ahead stamps nbf 30 s into Stratum's future: within the skew allowed.
        provider.notBeforeSeconds = 30;
        const ahead = await provider.signIn('eve');
        assert.equal((await context.server.get('/api/v1/organization', { token: ahead.accessToken })).status, 200);
      } finally {
        provider.notBeforeSeconds = undefined;
      }
    });

    it('follows a key rotation: the new key is fetched once, old tokens work while their key is published and are refused once it is gone', async () => {
      provider.addAccount('kim', { email: 'kim@example.com', groups: ['STRATUM_ADMIN'] });
      const first = await provider.signIn('kim');
      await organizations(context.server, first.accessToken);
      // An unknown key makes Stratum fetch the key set again at most once a second; let that second pass.
      await sleep(1100);

      await provider.rotateKeys({ keep: true });
      const second = await provider.signIn('kim');
      assert.notEqual(decodeProtectedHeader(second.accessToken).kid, decodeProtectedHeader(first.accessToken).kid);
      const rotated = await fetchesDuring(provider, async () => {
        // Several requests at once with the new key: one fetch serves them all.
        await Promise.all(Array.from({ length: 6 }, () => organizations(context.server, second.accessToken)));
        await organizations(context.server, first.accessToken);
      });
      assert.deepEqual(rotated, { discovery: 0, keys: 1 });
      await sleep(1100);

      // An urgent rotation: the earlier keys are withdrawn at once.
      await provider.rotateKeys({ keep: false });
      assert.equal(provider.keyIds.length, 1);
      const third = await provider.signIn('kim');
      const withdrawn = await fetchesDuring(provider, async () => {
        await Promise.all(Array.from({ length: 6 }, () => organizations(context.server, third.accessToken)));
        await assertRefused(context.server, first.accessToken, /not valid/);
        await assertRefused(context.server, second.accessToken, /not valid/);
      });
      assert.equal(withdrawn.discovery, 0);
      // The new key's fetch, and at most one more asked for by a withdrawn key, a second later.
      assert.ok(withdrawn.keys >= 1 && withdrawn.keys <= 2, `key set fetched ${withdrawn.keys} times`);
      assert.equal((await context.server.get('/api/v1/organization', { token: third.accessToken })).status, 200);
    });
  },
);

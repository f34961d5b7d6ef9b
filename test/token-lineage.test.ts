import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import { decodeJwt } from 'jose';
import {
  adminGroup,
  assertError,
  assertRefused,
  createOrganization,
  createRecord,
  describeEachStore,
  eventually,
  mint,
  staleTokenBoundMs,
  type TestServer,
} from './harness.ts';

const teamTokens = '/access-token/v1/teams';
const personalTokens = '/pat/v1';
const allTokens = '/admin/v1/tokens';

interface Issued {
  id: string;
  token: string;
  expiresAt: string | null;
  days: number;
}

/** Creates a team token (with `group`) or a personal token (without) with `token`, and returns the answer. */
async function issue(server: TestServer, token: string, body: Record<string, unknown>): Promise<Issued> {
  const created = await server.post(body.group === undefined ? personalTokens : teamTokens, { description: 'lineage', ...body }, { token });
  assert.equal(created.status, 201, created.text);
  return created.body as Issued;
}

const expiryOf = (token: string) => decodeJwt(token).exp;

describeEachStore('token lineage', (context) => {
  let organization: string;
  let group: string;
  let member: string;

  /** 200 when the token works. */
  const read = async (token: string) => (await context.server.get(`/api/v1/organization/${organization}`, { token })).status;
  const parentOf = async (id: string) => (await context.server.query('select parent_id from api_token where id = $1', [id]))[0]?.parent_id;

  before(async () => {
    organization = await createOrganization(context.server);
    group = `deployers-${randomUUID()}`;
    await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: group, manageWorkspace: true });
    member = await context.server.token({ groups: [group], ttlSeconds: 30 * 86400 });
  });

  it('revokes the team and personal tokens a team token created, and theirs in turn, when it is revoked', async () => {
    const parent = await issue(context.server, member, { group, days: 1 });
    const childTeam = await issue(context.server, parent.token, { group, days: 1 });
    const childPersonal = await issue(context.server, parent.token, { days: 0 });
    const grandchild = await issue(context.server, childTeam.token, { days: 1 });
    const sibling = await issue(context.server, member, { group, days: 1 });
    for (const token of [parent, childTeam, childPersonal, grandchild, sibling]) assert.equal(await read(token.token), 200);
    assert.equal(await parentOf(parent.id), null);
    assert.equal(await parentOf(childTeam.id), parent.id);
    assert.equal(await parentOf(childPersonal.id), parent.id);
    assert.equal(await parentOf(grandchild.id), childTeam.id);

    assert.equal((await context.server.delete(`${teamTokens}/${parent.id}`, { token: member })).status, 202);
    // At once on the server that revoked them, whatever it had cached.
    for (const token of [parent, childTeam, childPersonal, grandchild]) {
      assertRefused(await context.server.get(`/api/v1/organization/${organization}`, { token: token.token }), /revoked/);
    }
    assert.equal(await read(sibling.token), 200);
    const listed = ((await context.server.get(teamTokens, { token: member })).body as { id: string }[]).map((t) => t.id);
    assert.ok(listed.includes(sibling.id) && !listed.includes(parent.id) && !listed.includes(childTeam.id));
    const revokedAt = await context.server.query('select id, revoked_at from api_token where id in ($1, $2, $3, $4, $5)', [
      parent.id,
      childTeam.id,
      childPersonal.id,
      grandchild.id,
      sibling.id,
    ]);
    const parentRevokedAt = revokedAt.find((row) => row.id === parent.id)?.revoked_at;
    assert.equal(typeof parentRevokedAt, 'string');
    for (const row of revokedAt) assert.equal(row.revoked_at, row.id === sibling.id ? null : parentRevokedAt, String(row.id));
  });

  it('refuses a token whose parent is revoked though its own record is not, as a revocation racing its creation leaves it', async () => {
    const parent = await issue(context.server, member, { group, days: 1 });
    const child = await issue(context.server, parent.token, { group, days: 1 });
    assert.equal(await read(child.token), 200);
    // The revocation's statement did not see the child being created: only the parent's record is marked.
    assert.equal(
      await context.server.execute('update api_token set revoked_at = $1 where id = $2', [new Date().toISOString(), parent.id]),
      1,
    );
    const revoked = Date.now();
    await eventually(
      'the child of a revoked token to be refused',
      async () => {
        assertRefused(await context.server.get(`/api/v1/organization/${organization}`, { token: child.token }), /revoked/);
      },
      { timeoutMs: staleTokenBoundMs - (Date.now() - revoked) },
    );
  });

  it("bounds a token's expiry by the token it was created with, and keeps a shorter one", async () => {
    const parent = await issue(context.server, member, { group, minutes: 5 });
    const bound = expiryOf(parent.token);
    assert.equal(typeof bound, 'number');
    const boundDate = new Date(Number(bound) * 1000).toISOString();

    const longer = await issue(context.server, parent.token, { group, days: 30 });
    assert.equal(expiryOf(longer.token), bound);
    assert.equal(longer.expiresAt, boundDate);
    // What was asked stays on the record; the expiry shows the bound.
    assert.equal(longer.days, 30);
    const forever = await issue(context.server, parent.token, { days: 0 });
    assert.equal(expiryOf(forever.token), bound);
    assert.equal(forever.expiresAt, boundDate);
    const shorter = await issue(context.server, parent.token, { group, minutes: 1 });
    const claims = decodeJwt(shorter.token);
    assert.equal(Number(claims.exp) - Number(claims.iat), 60);
    assert.ok(Date.parse(shorter.expiresAt ?? '') < Date.parse(boundDate));
  });

  it('lets a sign-in of 5 minutes (a CLI-minted token) create longer-lived tokens, with no parent', async () => {
    const minted = mint(context.server.env, ['--subject', `ci-${randomUUID()}@example.com`, '--groups', group, '--ttl', '5m']);
    assert.equal(minted.status, 0, minted.stderr);
    const signIn = Number(expiryOf(minted.token));
    const team = await issue(context.server, minted.token, { group, days: 0 });
    const personal = await issue(context.server, minted.token, { days: 365 });
    assert.equal(expiryOf(team.token), undefined, 'a team token asked to live for ever does');
    assert.equal(team.expiresAt, null);
    assert.ok(Number(expiryOf(personal.token)) > signIn + 364 * 86400);
    for (const issued of [team, personal]) {
      assert.equal(await parentOf(issued.id), null);
      assert.equal(await read(issued.token), 200);
    }
  });

  it('records when a token was last used, without a write for every request', async () => {
    const issued = await issue(context.server, member, { group, days: 1 });
    const lastUsed = async () =>
      (await context.server.query('select last_used_at from api_token where id = $1', [issued.id]))[0]?.last_used_at;
    assert.equal(await lastUsed(), null);
    const before = Date.now();
    assert.equal(await read(issued.token), 200);
    const first = await lastUsed();
    assert.equal(typeof first, 'string');
    assert.ok(Date.parse(String(first)) >= before && Date.parse(String(first)) <= Date.now());
    assert.equal(await read(issued.token), 200);
    assert.equal(await lastUsed(), first);
  });

  it('lists every token of every owner for an administrator, with owner, parent and last use, and revokes any of them', async () => {
    const subject = `person-${randomUUID()}@example.com`;
    const person = await context.server.token({ subject, groups: [group], ttlSeconds: 30 * 86400 });
    const personal = await issue(context.server, person, { days: 1 });
    const team = await issue(context.server, personal.token, { group, days: 1 });
    assert.equal(await read(team.token), 200);
    const listed = async (query = '') => {
      const response = await context.server.get(`${allTokens}${query}`);
      assert.equal(response.status, 200, response.text);
      return response.body as Record<string, unknown>[];
    };
    const all = await listed();
    const teamEntry = all.find((entry) => entry.id === team.id);
    const personalEntry = all.find((entry) => entry.id === personal.id);
    assert.deepEqual(Object.keys(teamEntry ?? {}).sort(), [
      'createdBy',
      'createdDate',
      'description',
      'expiresAt',
      'group',
      'id',
      'kind',
      'lastUsedAt',
      'owner',
      'parentId',
      'revokedAt',
    ]);
    assert.deepEqual(
      { ...teamEntry, createdDate: undefined, lastUsedAt: undefined },
      {
        id: team.id,
        kind: 'team',
        description: 'lineage',
        group,
        owner: subject,
        parentId: personal.id,
        createdBy: subject,
        createdDate: undefined,
        expiresAt: team.expiresAt,
        lastUsedAt: undefined,
        revokedAt: null,
      },
    );
    assert.equal(typeof teamEntry?.lastUsedAt, 'string');
    assert.deepEqual(
      { kind: personalEntry?.kind, group: personalEntry?.group, owner: personalEntry?.owner, parentId: personalEntry?.parentId },
      { kind: 'personal', group: null, owner: subject, parentId: null },
    );
    // Used to create the team token, so used.
    assert.equal(typeof personalEntry?.lastUsedAt, 'string');
    // The administrator's own list still shows only the administrator's own personal tokens.
    assert.ok(!(await context.server.get(personalTokens)).body.some((entry: { id: string }) => entry.id === personal.id));

    const revoked = await context.server.delete(`${allTokens}/${personal.id}`);
    assert.equal(revoked.status, 202, revoked.text);
    assert.equal(revoked.text, '');
    for (const token of [personal, team]) {
      assertRefused(await context.server.get(`/api/v1/organization/${organization}`, { token: token.token }), /revoked/);
    }
    assert.deepEqual((await context.server.get(personalTokens, { token: person })).body, []);
    const ids = (entries: Record<string, unknown>[]) => entries.map((entry) => entry.id);
    assert.ok(!ids(await listed()).includes(personal.id) && !ids(await listed('?includeInactive=false')).includes(team.id));
    const inactive = await listed('?includeInactive=true');
    for (const id of [personal.id, team.id]) assert.equal(typeof inactive.find((entry) => entry.id === id)?.revokedAt, 'string', id);
    // Revoking a revoked token again changes nothing and says so the same way.
    assert.equal((await context.server.delete(`${allTokens}/${team.id}`)).status, 202);
  });

  it('lists an expired token only when asked for inactive ones', async () => {
    const expired = await issue(context.server, member, { group, minutes: 5 });
    assert.equal(
      await context.server.execute('update api_token set expires_at = $1 where id = $2', [
        new Date(Date.now() - 1000).toISOString(),
        expired.id,
      ]),
      1,
    );
    const ids = async (query: string) => ((await context.server.get(`${allTokens}${query}`)).body as { id: string }[]).map((t) => t.id);
    assert.ok(!(await ids('')).includes(expired.id));
    assert.ok((await ids('?includeInactive=true')).includes(expired.id));
  });

  it('refuses the administration of tokens to anyone but administrators: 403, and 401 without a token', async () => {
    const own = await issue(context.server, member, { days: 1 });
    const teamToken = await issue(context.server, member, { group, days: 1 });
    for (const token of [member, own.token, teamToken.token]) {
      assertError(await context.server.get(allTokens, { token }), 403);
      assertError(await context.server.get(`${allTokens}?includeInactive=true`, { token }), 403);
      // Even its own token: the caller's own endpoints revoke those.
      assertError(await context.server.delete(`${allTokens}/${own.id}`, { token }), 403);
      assertError(await context.server.delete(`${allTokens}/${randomUUID()}`, { token }), 403);
    }
    assert.equal(await read(own.token), 200);
    for (const response of [
      await context.server.get(allTokens, { token: null }),
      await context.server.delete(`${allTokens}/${own.id}`, { token: null }),
    ]) {
      assertError(response, 401);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    }
  });

  it('answers 404 for an unknown or malformed token id and 400 for a bad query parameter', async () => {
    for (const id of [randomUUID(), 'not-a-token-id', `${randomUUID()}0`, randomUUID().toUpperCase()]) {
      assert.match(assertError(await context.server.delete(`${allTokens}/${id}`), 404)[0]?.detail ?? '', /^Unknown identifier/, id);
    }
    // A NUL character is refused at the edge, before any route, as everywhere.
    assertError(await context.server.delete(`${allTokens}/%00`), 400);
    for (const query of ['includeInactive=yes', 'includeInactive=', 'kind=team']) {
      const errors = assertError(await context.server.get(`${allTokens}?${query}`), 400) as { source?: { parameter?: string } }[];
      assert.equal(errors[0]?.source?.parameter, query.split('=')[0], query);
    }
  });
});

describeEachStore(
  'token maximum lifetimes',
  { env: { STRATUM_PERSONAL_TOKEN_MAX_DAYS: '30', STRATUM_TEAM_TOKEN_MAX_DAYS: '400' } },
  (context) => {
    let person: string;
    before(async () => {
      person = await context.server.token({ groups: ['platform'], ttlSeconds: 365 * 86400 });
    });

    it('refuses a personal token asked for longer than the maximum or for ever (400 at /days naming it), and issues one within it', async () => {
      for (const lifetime of [{ days: 31 }, { days: 0 }, {}, { days: 0, hours: 0, minutes: 0 }, { days: 30, minutes: 1 }, { hours: 721 }]) {
        const errors = assertError(
          await context.server.post(personalTokens, { description: 'too long', ...lifetime }, { token: person }),
          400,
          '/days',
        );
        assert.match(errors[0]?.detail ?? '', /at most 30 days/, JSON.stringify(lifetime));
      }
      for (const lifetime of [{ days: 30 }, { hours: 720 }, { days: '1', minutes: 5 }]) {
        const created = await context.server.post(personalTokens, { description: 'within', ...lifetime }, { token: person });
        assert.equal(created.status, 201, created.text);
      }
      // Team tokens have their own maximum.
      const group = `platform-${randomUUID()}`;
      const administrator = await context.server.token({ groups: [adminGroup], ttlSeconds: 400 * 86400 });
      const team = await context.server.post(teamTokens, { description: 'ci', days: 365, group }, { token: administrator });
      assert.equal(team.status, 201, team.text);
      const claims = decodeJwt(team.body.token);
      assert.equal(Number(claims.exp) - Number(claims.iat), 365 * 86400);
    });

    it('refuses a team token asked for longer than the team maximum or for ever, even to an administrator', async () => {
      const group = `platform-${randomUUID()}`;
      const administrator = await context.server.token({ groups: [adminGroup], ttlSeconds: 3600 });
      for (const lifetime of [{ days: 401 }, { days: 0, hours: 0, minutes: 0 }, {}, { days: '400', minutes: '1' }]) {
        const errors = assertError(
          await context.server.post(teamTokens, { description: 'for ever', group, ...lifetime }, { token: administrator }),
          400,
          '/days',
        );
        assert.match(errors[0]?.detail ?? '', /A team token may live at most 400 days/, JSON.stringify(lifetime));
      }
      const within = await context.server.post(teamTokens, { description: 'ci', group, days: 400 }, { token: administrator });
      assert.equal(within.status, 201, within.text);
      // Asked with a sign-in that ends in an hour: what was asked is judged, and the sign-in is no parent.
      const claims = decodeJwt(within.body.token);
      assert.equal(Number(claims.exp) - Number(claims.iat), 400 * 86400);
      const listed = await context.server.get(teamTokens, { token: administrator });
      assert.ok(
        listed.body.some((token: { id: string; expiresAt: string | null }) => token.id === within.body.id && token.expiresAt !== null),
      );
    });
  },
);

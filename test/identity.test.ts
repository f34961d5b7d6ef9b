import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import util from 'node:util';
import { decodeJwt, SignJWT } from 'jose';
import {
  adminGroup,
  assertError,
  assertRefused,
  createOrganization,
  createRecord,
  createWorkspace,
  describeEachStore,
  eventually,
  resourceDocument,
  staleTokenBoundMs,
  TestServer,
} from './harness.ts';

const teamTokens = '/access-token/v1/teams';

describeEachStore('identity and access', (context) => {
  let mine: string;
  let theirs: string;
  let group: string;
  let member: string;

  const addTeam = (organization: string, attributes: Record<string, unknown>) =>
    createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: `team-${randomUUID()}`, ...attributes });

  before(async () => {
    mine = await createOrganization(context.server);
    theirs = await createOrganization(context.server);
    group = `developers-${randomUUID()}`;
    await addTeam(mine, { name: group, manageWorkspace: true });
    // Long enough that the tokens it creates keep the lifetimes they ask for: none outlives the token it was created with.
    member = await context.server.token({ groups: [group, 'unrelated'], ttlSeconds: 30 * 86400 });
  });

  it('lets members read their organization, with paging totals that count only it, and hides every other one', async () => {
    const list = await context.server.get('/api/v1/organization?page[size]=10&page[totals]', { token: member });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.data.map((o: { id: string }) => o.id),
      [mine],
    );
    assert.equal(list.body.meta.page.totalRecords, 1);
    assert.equal((await context.server.get(`/api/v1/organization/${mine}?include=workspace,team`, { token: member })).status, 200);
    assertError(await context.server.get(`/api/v1/organization/${theirs}`, { token: member }), 404);
    assertError(await context.server.get(`/api/v1/organization/${theirs}/workspace`, { token: member }), 404);
    const admin = await context.server.get('/api/v1/organization?page[size]=1&page[totals]');
    assert.ok(admin.body.meta.page.totalRecords >= 2);
  });

  it('reads everything inside the organization but secret values', async () => {
    const workspace = await createWorkspace(context.server, mine);
    const secret = `secret-${randomUUID()}`;
    const variable = await createRecord(context.server, `/api/v1/workspace/${workspace}/variable`, 'variable', {
      key: 'TOKEN',
      value: secret,
      category: 'ENV',
      sensitive: true,
    });
    const read = await context.server.get(`/api/v1/workspace/${workspace}/variable/${variable}`, { token: member });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.data.attributes.value, null);
    assert.ok(
      !(await context.server.get(`/api/v1/organization/${mine}/workspace?include=variable`, { token: member })).text.includes(secret),
    );
  });

  it('gates writes by the team flags: 201 with the flag, 403 without it, administrator-only records 403 for members', async () => {
    const created = await context.server.post(
      `/api/v1/organization/${mine}/workspace`,
      resourceDocument('workspace', { name: `ws-${randomUUID()}` }),
      { token: member },
    );
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.data.attributes.createdBy, /^user-.*@example\.com$/);
    assertError(
      await context.server.post(`/api/v1/organization/${mine}/collection`, resourceDocument('collection', { name: 'c' }), {
        token: member,
      }),
      403,
    );
    assertError(
      await context.server.post(`/api/v1/organization/${mine}/vcs`, resourceDocument('vcs', { name: 'v', vcsType: 'GITHUB' }), {
        token: member,
      }),
      403,
    );
    assertError(
      await context.server.post(`/api/v1/organization/${mine}/team`, resourceDocument('team', { name: 't' }), { token: member }),
      403,
    );
    assertError(
      await context.server.patch(`/api/v1/organization/${mine}`, resourceDocument('organization', { description: 'x' }, { id: mine }), {
        token: member,
      }),
      403,
    );
    assertError(await context.server.delete(`/api/v1/organization/${mine}`, { token: member }), 403);
    assertError(
      await context.server.post('/api/v1/organization', resourceDocument('organization', { name: `o-${randomUUID()}` }), { token: member }),
      403,
    );
    assertError(
      await context.server.post(`/api/v1/organization/${theirs}/workspace`, resourceDocument('workspace', { name: 'x' }), {
        token: member,
      }),
      404,
    );
  });

  it('maps team roles to permissions as Terrakube does, and ORs every team of the caller', async () => {
    const organization = await createOrganization(context.server);
    const permissions = async (groups: string[]) => {
      const response = await context.server.get(`${teamTokens}/permissions/organization/${organization}`, {
        token: await context.server.token({ groups }),
      });
      assert.equal(response.status, 200, response.text);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      return Object.entries(response.body as Record<string, boolean>)
        .filter(([, held]) => held)
        .map(([name]) => name)
        .sort();
    };
    const names = {
      admin: `a-${randomUUID()}`,
      write: `w-${randomUUID()}`,
      plan: `p-${randomUUID()}`,
      read: `r-${randomUUID()}`,
      custom: `c-${randomUUID()}`,
    };
    await addTeam(organization, { name: names.admin, role: 'admin' });
    await addTeam(organization, { name: names.write, role: 'write', manageVcs: true });
    await addTeam(organization, { name: names.plan, role: 'plan' });
    await addTeam(organization, { name: names.read, role: 'read', manageCollection: true });
    await addTeam(organization, { name: names.custom, manageVcs: true, manageCollection: true });
    assert.deepEqual(await permissions([names.admin]), [
      'approveJob',
      'manageCollection',
      'manageJob',
      'manageModule',
      'manageProvider',
      'manageState',
      'manageTemplate',
      'manageVcs',
      'manageWorkspace',
      'planJob',
    ]);
    assert.deepEqual(await permissions([names.write]), ['approveJob', 'manageJob', 'manageState', 'manageWorkspace', 'planJob']);
    assert.deepEqual(await permissions([names.plan]), ['manageJob', 'planJob']);
    assert.deepEqual(await permissions([names.read]), []);
    assert.deepEqual(await permissions([names.custom]), ['manageCollection', 'manageVcs']);
    assert.deepEqual(await permissions([names.plan, names.custom]), ['manageCollection', 'manageJob', 'manageVcs', 'planJob']);
    const all = await context.server.get(`${teamTokens}/permissions/organization/${organization}`);
    assert.equal(Object.keys(all.body).length, 11);
    assert.ok(
      Object.values(all.body).every((held) => held === true),
      'administrators hold every permission and managePermission',
    );

    // A member with the role reads and writes accordingly; a read-only member only reads.
    const reader = await context.server.token({ groups: [names.read] });
    assert.equal((await context.server.get(`/api/v1/organization/${organization}/collection`, { token: reader })).status, 200);
    assertError(
      await context.server.post(`/api/v1/organization/${organization}/collection`, resourceDocument('collection', { name: 'c' }), {
        token: reader,
      }),
      403,
    );
    const writer = await context.server.token({ groups: [names.write] });
    assert.equal(
      (
        await context.server.post(`/api/v1/organization/${organization}/workspace`, resourceDocument('workspace', { name: 'w' }), {
          token: writer,
        })
      ).status,
      201,
    );
  });

  it('answers permissions for a workspace of the organization, and 404 outside what the caller sees', async () => {
    const workspace = await createWorkspace(context.server, mine);
    const response = await context.server.get(`${teamTokens}/permissions/organization/${mine}/workspace/${workspace}`, { token: member });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.manageWorkspace, true);
    assert.equal(response.body.managePermission, false);
    const foreign = await createWorkspace(context.server, theirs);
    assertError(await context.server.get(`${teamTokens}/permissions/organization/${mine}/workspace/${foreign}`, { token: member }), 404);
    assertError(await context.server.get(`${teamTokens}/permissions/organization/${theirs}`, { token: member }), 404);
    assertError(await context.server.get(`${teamTokens}/permissions/organization/not-an-id`, { token: member }), 404);
  });

  it('lists the caller groups at current-teams', async () => {
    const response = await context.server.get(`${teamTokens}/current-teams`, { token: member });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { groups: [group, 'unrelated'] });
  });

  it('issues a team token once, as the provider sends the request, and stores only its hash', async () => {
    const created = await context.server.post(
      `${teamTokens}/`,
      { id: '', description: 'ci pipeline', days: 1, hours: '2', minutes: 3, group, token: '' },
      { token: member, headers: { 'content-type': 'application/vnd.api+json' } },
    );
    assert.equal(created.status, 201, created.text);
    assert.match(created.headers.get('content-type') ?? '', /^application\/json/);
    const { id, token, ...rest } = created.body as {
      id: string;
      token: string;
      expiresAt: string;
      createdDate: string;
      createdBy: string;
    };
    assert.deepEqual(
      { ...rest, createdDate: undefined, expiresAt: undefined, createdBy: undefined },
      {
        description: 'ci pipeline',
        group,
        days: 1,
        hours: 2,
        minutes: 3,
        deleted: false,
        createdDate: undefined,
        expiresAt: undefined,
        createdBy: undefined,
      },
    );
    const claims = decodeJwt(token);
    assert.equal(claims.jti, id);
    assert.deepEqual(claims.groups, [group]);
    assert.equal(claims.sub, `team:${group}`);
    assert.equal(Number(claims.exp) - Number(claims.iat), 86400 + 7200 + 180);
    assert.equal(Date.parse(rest.expiresAt) - Date.parse(rest.createdDate), (86400 + 7200 + 180) * 1000);

    const [row] = await context.server.query('select * from api_token where id = $1', [id]);
    assert.equal(row?.token_hash, createHash('sha256').update(token).digest('hex'));
    assert.ok(!JSON.stringify(row).includes(token.split('.')[2] ?? token));

    // The team token acts as a member of its team.
    assert.equal(
      (
        await context.server.post(`/api/v1/organization/${mine}/workspace`, resourceDocument('workspace', { name: `t-${randomUUID()}` }), {
          token,
        })
      ).status,
      201,
    );
    assertError(await context.server.get(`/api/v1/organization/${theirs}`, { token }), 404);

    const listed = await context.server.get(teamTokens, { token: member });
    assert.equal(listed.status, 200);
    const entry = (listed.body as { id: string }[]).find((t) => t.id === id);
    assert.deepEqual(entry, { id, ...rest });
    assert.ok(!listed.text.includes(token));
  });

  it('issues a token that never expires when days, hours and minutes are all zero and the caller token never expires', async () => {
    const forever = await context.server.token({ groups: [group], ttlSeconds: null });
    const created = await context.server.post(
      teamTokens,
      { description: 'forever', days: 0, hours: '0', minutes: 0, group },
      { token: forever, headers: { 'content-type': 'application/json' } },
    );
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.expiresAt, null);
    assert.equal(decodeJwt(created.body.token).exp, undefined);
    assert.equal((await context.server.get(`/api/v1/organization/${mine}`, { token: created.body.token })).status, 200);
  });

  it('refuses bad token requests with a clear 400, and groups the caller is not in with 403', async () => {
    const post = (body: unknown) => context.server.post(teamTokens, body, { token: member });
    assert.match(assertError(await post({ description: 'd', group, days: -1 }), 400, '/days')[0]?.detail ?? '', /zero or more/);
    assertError(await post({ description: 'd', group, hours: 'soon' }), 400, '/hours');
    assertError(await post({ description: 'd', group, minutes: 1.5 }), 400, '/minutes');
    assertError(await post({ description: 'd', group, days: 100000 }), 400, '/days');
    assertError(await post({ group, days: 1 }), 400, '/description');
    assertError(await post({ description: 'd', days: 1 }), 400, '/group');
    assertError(await post({ description: 'd', group, days: 1, scope: 'all' }), 400, '/scope');
    assertError(await post({ description: 'd', group, token: 'mine' }), 400, '/token');
    assertError(await post([]), 400);
    assertError(
      await context.server.request('POST', teamTokens, {
        token: member,
        raw: '{"description":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
    );
    assertError(
      await context.server.request('POST', teamTokens, {
        token: member,
        raw: 'description=d',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      415,
    );
    assertError(await post({ description: 'd', group: 'someone-elses', days: 1 }), 403);
    const byAdmin = await context.server.post(teamTokens, { description: 'd', group: 'someone-elses', days: 1 });
    assert.equal(byAdmin.status, 201, byAdmin.text);
    assert.ok(!(await context.server.get(teamTokens, { token: member })).body.some((t: { id: string }) => t.id === byAdmin.body.id));
    assert.ok((await context.server.get(teamTokens)).body.some((t: { id: string }) => t.id === byAdmin.body.id));
  });

  it('revokes a team token with 202: 401 at once, gone from the list, and only for its group members or administrators', async () => {
    const { id, token } = (await context.server.post(teamTokens, { description: 'revoke me', days: 1, group }, { token: member })).body as {
      id: string;
      token: string;
    };
    assert.equal((await context.server.get(`/api/v1/organization/${mine}`, { token })).status, 200);
    const outsider = await context.server.token({ groups: ['someone-else'] });
    assertError(await context.server.delete(`${teamTokens}/${id}`, { token: outsider }), 404);
    assertError(await context.server.delete(`${teamTokens}/${randomUUID()}`, { token: member }), 404);
    const [issued] = await context.server.query('select created_by, updated_by, created_date, updated_date from api_token where id = $1', [
      id,
    ]);
    assert.deepEqual([issued?.updated_by, issued?.updated_date], [issued?.created_by, issued?.created_date]);
    const revoked = await context.server.delete(`${teamTokens}/${id}`, { token: member });
    assert.equal(revoked.status, 202, revoked.text);
    assert.equal(revoked.text, '');
    // The revocation is audited as a change of the record: who revoked it, and when.
    const [record] = await context.server.query('select revoked_at, updated_by, updated_date from api_token where id = $1', [id]);
    assert.equal(record?.updated_by, decodeJwt(member).email ?? decodeJwt(member).sub);
    assert.equal(record?.updated_date, record?.revoked_at);
    assertRefused(await context.server.get(`/api/v1/organization/${mine}`, { token }), /revoked/);
    assert.ok(!(await context.server.get(teamTokens, { token: member })).body.some((t: { id: string }) => t.id === id));
    assertError(await context.server.delete(`${teamTokens}/${id}`, { token: member }), 404);
  });

  it('drops a team token from the list and refuses it once its record has expired', async () => {
    const { id, token } = (await context.server.post(teamTokens, { description: 'short-lived', minutes: 5, group }, { token: member }))
      .body as {
      id: string;
      token: string;
    };
    assert.equal((await context.server.get(`/api/v1/organization/${mine}`, { token })).status, 200);
    // Five minutes are too long to wait: the record is moved into the past instead.
    assert.equal(
      await context.server.execute('update api_token set expires_at = $1 where id = $2', [new Date(Date.now() - 1000).toISOString(), id]),
      1,
    );
    const expired = Date.now();
    assert.ok(!(await context.server.get(teamTokens, { token: member })).body.some((t: { id: string }) => t.id === id));
    // The server had seen the token live, and may trust that for a while after the record changed behind its back.
    await eventually(
      'the server to refuse the expired token',
      async () => {
        assertRefused(await context.server.get(`/api/v1/organization/${mine}`, { token }), /revoked/);
      },
      { timeoutMs: staleTokenBoundMs - (Date.now() - expired) },
    );
  });

  it('refuses a token whose claims hold a NUL character with 401, alike on both stores', async () => {
    for (const claims of [
      { subject: 'a\u0000b@example.com' },
      { groups: ['STRATUM_ADMIN', 'team\u0000x'] },
      { email: 'x\u0000@example.com' },
    ]) {
      const token = await context.server.token(claims);
      assertRefused(await context.server.get(`/api/v1/organization/${mine}`, { token }), /NUL/);
      assertRefused(await context.server.post('/pat/v1', { description: 'd', days: 1 }, { token }), /NUL/);
    }
  });

  it('refuses expired, forged and unsigned tokens with 401 and WWW-Authenticate', async () => {
    assertRefused(
      await context.server.get('/api/v1/organization', {
        token: await context.server.token({ groups: ['STRATUM_ADMIN'], ttlSeconds: -60 }),
      }),
      /expired/,
    );
    // A member's token made into a tracked one by editing its claims: the signature no longer matches.
    const [header, payload] = member.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ ...decodeJwt(member), stratum_token: 'team', jti: randomUUID() })).toString(
      'base64url',
    );
    assertRefused(
      await context.server.get('/api/v1/organization', { token: `${header}.${forgedPayload}.${member.split('.')[2]}` }),
      /signature does not match/,
    );
    // A tracked token the server never issued: right key, no record.
    const neverIssued = await context.server.signer.sign({
      subject: 'x@example.com',
      groups: [],
      ttlSeconds: 60,
      tracked: { id: randomUUID(), kind: 'team' },
    });
    assertRefused(await context.server.get('/api/v1/organization', { token: neverIssued.token }), /revoked/);
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
    assertRefused(await context.server.get('/api/v1/organization', { token: unsigned }), /not valid/);
    const noResponse = await context.server.get('/api/v1/organization', { token: null });
    assert.equal(noResponse.status, 401);
    assert.equal(noResponse.headers.get('www-authenticate'), 'Bearer');
  });

  it('refuses a token that expires after it was accepted, at its expiry', async () => {
    // Verified tokens are reused between requests; the reuse must end with the token.
    const token = await context.server.token({ groups: ['STRATUM_ADMIN'], ttlSeconds: 2 });
    const expiresMs = (decodeJwt(token).exp ?? 0) * 1000;
    assert.equal((await context.server.get('/api/v1/organization', { token })).status, 200);
    assert.equal((await context.server.get('/api/v1/organization', { token })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresMs - Date.now()) + 50));
    assertRefused(await context.server.get('/api/v1/organization', { token }), /expired/);
  });

  it('refuses a token issued an hour in the future with 401, and accepts one within the clock skew', async () => {
    const key = new TextEncoder().encode(context.server.env.STRATUM_TOKEN_KEY);
    const now = Math.floor(Date.now() / 1000);
    const signed = (issuedAt: number) =>
      new SignJWT({ groups: [adminGroup] })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer('stratum')
        .setSubject('clock@example.com')
        .setIssuedAt(issuedAt)
        .setExpirationTime(now + 7200)
        .sign(key);
    assertRefused(await context.server.get('/api/v1/organization', { token: await signed(now + 3600) }), /issued in the future/);
    assert.equal((await context.server.get('/api/v1/organization', { token: await signed(now + 30) })).status, 200);
  });

  it('issues, lists and revokes personal tokens that act as their creator with the groups it had', async () => {
    const subject = `person-${randomUUID()}@example.com`;
    const person = await context.server.token({ subject, groups: [group] });
    const created = await context.server.post('/pat/v1', { description: 'laptop', days: 30, hours: 0, minutes: 0 }, { token: person });
    assert.equal(created.status, 201, created.text);
    const { id, token } = created.body as { id: string; token: string };
    assert.equal(decodeJwt(token).sub, subject);
    assert.equal(created.body.group, undefined);
    assert.equal((await context.server.get(`/api/v1/organization/${mine}`, { token })).status, 200);
    const made = await context.server.post(
      `/api/v1/organization/${mine}/workspace`,
      resourceDocument('workspace', { name: `p-${randomUUID()}` }),
      { token },
    );
    assert.equal(made.body.data.attributes.createdBy, subject);

    assert.deepEqual(
      (await context.server.get('/pat/v1', { token: person })).body.map((t: { id: string }) => t.id),
      [id],
    );
    const someoneElse = await context.server.token({ groups: [group] });
    assert.deepEqual((await context.server.get('/pat/v1', { token: someoneElse })).body, []);
    assertError(await context.server.delete(`/pat/v1/${id}`, { token: someoneElse }), 404);
    assertError(await context.server.post('/pat/v1', { description: 'x', group }, { token: person }), 400, '/group');
    assert.equal((await context.server.delete(`/pat/v1/${id}`, { token: person })).status, 202);
    assertRefused(await context.server.get(`/api/v1/organization/${mine}`, { token }), /revoked/);
    assert.deepEqual((await context.server.get('/pat/v1', { token: person })).body, []);
  });

  it('keeps tokens out of the log', async () => {
    const requestLines = () =>
      context.server.logs.map((line) => {
        const { method, path, status } = JSON.parse(line) as Record<string, unknown>;
        return { method, path, status };
      });
    // The log is written asynchronously, so earlier tests' lines may still be arriving: a request to a
    // path no other request names marks where this test's lines begin.
    const marker = `/api/v1/organization/${randomUUID()}`;
    assertError(await context.server.get(marker), 404);
    const markerLine = await eventually('the marker request in the log', () => {
      const index = requestLines().findIndex((line) => line.path === marker);
      assert.ok(index >= 0, 'not logged yet');
      return index;
    });

    const created = await context.server.post(teamTokens, { description: 'logged?', days: 1, group }, { token: member });
    assert.equal(created.status, 201, created.text);
    const { token } = created.body as { token: string };
    assert.equal((await context.server.get(`/api/v1/organization/${mine}`, { token })).status, 200);
    // Without its lines the log would hold no token simply because nothing was written yet.
    const made = [
      { method: 'POST', path: teamTokens, status: 201 },
      { method: 'GET', path: `/api/v1/organization/${mine}`, status: 200 },
    ];
    await eventually("this test's requests in the log", () => {
      const since = requestLines().slice(markerLine + 1);
      for (const request of made) {
        assert.ok(
          since.some((line) => util.isDeepStrictEqual(line, request)),
          `no log line ${JSON.stringify(request)}`,
        );
      }
    });
    const logs = context.server.logs.join('\n');
    for (const secret of [token, member, context.server.adminToken]) assert.ok(!logs.includes(secret.split('.')[2] ?? secret));
  });

  if (context.kind === 'postgres') {
    it('stops a revoked token within 1 second on a second server sharing the database', async () => {
      const second = await TestServer.start(context.kind, {
        DATABASE_URL: context.server.env.DATABASE_URL ?? '',
        STRATUM_TOKEN_KEY: context.server.env.STRATUM_TOKEN_KEY ?? '',
        STRATUM_ENCRYPTION_KEY: context.server.env.STRATUM_ENCRYPTION_KEY ?? '',
      });
      try {
        const { id, token } = (await context.server.post(teamTokens, { description: 'shared', days: 1, group }, { token: member }))
          .body as {
          id: string;
          token: string;
        };
        // The second server has seen the token live, so any cache it keeps holds it.
        assert.equal((await second.get(`/api/v1/organization/${mine}`, { token })).status, 200);
        assert.equal((await context.server.delete(`${teamTokens}/${id}`, { token: member })).status, 202);
        await eventually(
          'the second server to refuse the revoked token',
          async () => {
            assertRefused(await second.get(`/api/v1/organization/${mine}`, { token }), /revoked/);
          },
          { timeoutMs: staleTokenBoundMs },
        );
      } finally {
        await second.stop();
      }
    });
  }
});

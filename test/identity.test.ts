import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeJwt } from 'jose';
import { assertError, createOrganization, createRecord, createWorkspace, resourceDocument, storeKinds, TestServer, type Response } from './harness.ts';

const teamTokens = '/access-token/v1/teams';

function assertRefused(response: Response, reason: RegExp): void {
  assertError(response, 401);
  const challenge = response.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer error="invalid_token"/);
  assert.match(challenge, reason);
}

for (const kind of storeKinds) {
  describe(`identity and access (${kind})`, () => {
    let server: TestServer;
    let mine: string;
    let theirs: string;
    let group: string;
    let member: string;

    const addTeam = (organization: string, attributes: Record<string, unknown>) =>
      createRecord(server, `/api/v1/organization/${organization}/team`, 'team', { name: `team-${randomUUID()}`, ...attributes });

    before(async () => {
      server = await TestServer.start(kind);
      mine = await createOrganization(server);
      theirs = await createOrganization(server);
      group = `developers-${randomUUID()}`;
      await addTeam(mine, { name: group, manageWorkspace: true });
      member = await server.token({ groups: [group, 'unrelated'] });
    });
    after(async () => {
      await server.stop();
    });

    it('lets members read their organization, with paging totals that count only it, and hides every other one', async () => {
      const list = await server.get('/api/v1/organization?page[size]=10&page[totals]', { token: member });
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.body.data.map((o: { id: string }) => o.id), [mine]);
      assert.equal(list.body.meta.page.totalRecords, 1);
      assert.equal((await server.get(`/api/v1/organization/${mine}?include=workspace,team`, { token: member })).status, 200);
      assertError(await server.get(`/api/v1/organization/${theirs}`, { token: member }), 404);
      assertError(await server.get(`/api/v1/organization/${theirs}/workspace`, { token: member }), 404);
      const admin = await server.get('/api/v1/organization?page[size]=1&page[totals]');
      assert.ok(admin.body.meta.page.totalRecords >= 2);
    });

    it('reads everything inside the organization but secret values', async () => {
      const workspace = await createWorkspace(server, mine);
      const secret = `secret-${randomUUID()}`;
      const variable = await createRecord(server, `/api/v1/workspace/${workspace}/variable`, 'variable', { key: 'TOKEN', value: secret, category: 'ENV', sensitive: true });
      const read = await server.get(`/api/v1/workspace/${workspace}/variable/${variable}`, { token: member });
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.data.attributes.value, null);
      assert.ok(!(await server.get(`/api/v1/organization/${mine}/workspace?include=variable`, { token: member })).text.includes(secret));
    });

    it('gates writes by the team flags: 201 with the flag, 403 without it, administrator-only records 403 for members', async () => {
      const created = await server.post(`/api/v1/organization/${mine}/workspace`, resourceDocument('workspace', { name: `ws-${randomUUID()}` }), { token: member });
      assert.equal(created.status, 201, created.text);
      assert.match(created.body.data.attributes.createdBy, /^user-.*@example\.com$/);
      assertError(await server.post(`/api/v1/organization/${mine}/collection`, resourceDocument('collection', { name: 'c' }), { token: member }), 403);
      assertError(await server.post(`/api/v1/organization/${mine}/vcs`, resourceDocument('vcs', { name: 'v', vcsType: 'GITHUB' }), { token: member }), 403);
      assertError(await server.post(`/api/v1/organization/${mine}/team`, resourceDocument('team', { name: 't' }), { token: member }), 403);
      assertError(await server.patch(`/api/v1/organization/${mine}`, resourceDocument('organization', { description: 'x' }, { id: mine }), { token: member }), 403);
      assertError(await server.delete(`/api/v1/organization/${mine}`, { token: member }), 403);
      assertError(await server.post('/api/v1/organization', resourceDocument('organization', { name: `o-${randomUUID()}` }), { token: member }), 403);
      assertError(await server.post(`/api/v1/organization/${theirs}/workspace`, resourceDocument('workspace', { name: 'x' }), { token: member }), 404);
    });

    it('maps team roles to permissions as Terrakube does, and ORs every team of the caller', async () => {
      const organization = await createOrganization(server);
      const permissions = async (groups: string[]) => {
        const response = await server.get(`${teamTokens}/permissions/organization/${organization}`, { token: await server.token({ groups }) });
        assert.equal(response.status, 200, response.text);
        assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
        return Object.entries(response.body as Record<string, boolean>).filter(([, held]) => held).map(([name]) => name).sort();
      };
      const names = { admin: `a-${randomUUID()}`, write: `w-${randomUUID()}`, plan: `p-${randomUUID()}`, read: `r-${randomUUID()}`, custom: `c-${randomUUID()}` };
      await addTeam(organization, { name: names.admin, role: 'admin' });
      await addTeam(organization, { name: names.write, role: 'write', manageVcs: true });
      await addTeam(organization, { name: names.plan, role: 'plan' });
      await addTeam(organization, { name: names.read, role: 'read', manageCollection: true });
      await addTeam(organization, { name: names.custom, manageVcs: true, manageCollection: true });
      assert.deepEqual(await permissions([names.admin]), ['approveJob', 'manageCollection', 'manageJob', 'manageModule', 'manageProvider', 'manageState', 'manageTemplate', 'manageVcs', 'manageWorkspace', 'planJob']);
      assert.deepEqual(await permissions([names.write]), ['approveJob', 'manageJob', 'manageState', 'manageWorkspace', 'planJob']);
      assert.deepEqual(await permissions([names.plan]), ['manageJob', 'planJob']);
      assert.deepEqual(await permissions([names.read]), []);
      assert.deepEqual(await permissions([names.custom]), ['manageCollection', 'manageVcs']);
      assert.deepEqual(await permissions([names.plan, names.custom]), ['manageCollection', 'manageJob', 'manageVcs', 'planJob']);
      const all = await server.get(`${teamTokens}/permissions/organization/${organization}`);
      assert.equal(Object.keys(all.body).length, 11);
      assert.ok(Object.values(all.body).every((held) => held === true), 'administrators hold every permission and managePermission');

      // A member with the role reads and writes accordingly; a read-only member only reads.
      const reader = await server.token({ groups: [names.read] });
      assert.equal((await server.get(`/api/v1/organization/${organization}/collection`, { token: reader })).status, 200);
      assertError(await server.post(`/api/v1/organization/${organization}/collection`, resourceDocument('collection', { name: 'c' }), { token: reader }), 403);
      const writer = await server.token({ groups: [names.write] });
      assert.equal((await server.post(`/api/v1/organization/${organization}/workspace`, resourceDocument('workspace', { name: 'w' }), { token: writer })).status, 201);
    });

    it('answers permissions for a workspace of the organization, and 404 outside what the caller sees', async () => {
      const workspace = await createWorkspace(server, mine);
      const response = await server.get(`${teamTokens}/permissions/organization/${mine}/workspace/${workspace}`, { token: member });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.manageWorkspace, true);
      assert.equal(response.body.managePermission, false);
      const foreign = await createWorkspace(server, theirs);
      assertError(await server.get(`${teamTokens}/permissions/organization/${mine}/workspace/${foreign}`, { token: member }), 404);
      assertError(await server.get(`${teamTokens}/permissions/organization/${theirs}`, { token: member }), 404);
      assertError(await server.get(`${teamTokens}/permissions/organization/not-an-id`, { token: member }), 404);
    });

    it('lists the caller groups at current-teams', async () => {
      const response = await server.get(`${teamTokens}/current-teams`, { token: member });
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { groups: [group, 'unrelated'] });
    });

    it('issues a team token once, as the provider sends the request, and stores only its hash', async () => {
      const created = await server.post(
        `${teamTokens}/`,
        { id: '', description: 'ci pipeline', days: 1, hours: '2', minutes: 3, group, token: '' },
        { token: member, headers: { 'content-type': 'application/vnd.api+json' } },
      );
      assert.equal(created.status, 201, created.text);
      assert.match(created.headers.get('content-type') ?? '', /^application\/json/);
      const { id, token, ...rest } = created.body as { id: string; token: string; expiresAt: string; createdDate: string; createdBy: string };
      assert.deepEqual({ ...rest, createdDate: undefined, expiresAt: undefined, createdBy: undefined }, {
        description: 'ci pipeline',
        group,
        days: 1,
        hours: 2,
        minutes: 3,
        deleted: false,
        createdDate: undefined,
        expiresAt: undefined,
        createdBy: undefined,
      });
      const claims = decodeJwt(token);
      assert.equal(claims.jti, id);
      assert.deepEqual(claims.groups, [group]);
      assert.equal(claims.sub, `team:${group}`);
      assert.equal(Number(claims.exp) - Number(claims.iat), 86400 + 7200 + 180);
      assert.equal(Date.parse(rest.expiresAt) - Date.parse(rest.createdDate), (86400 + 7200 + 180) * 1000);

      const [row] = await server.query('select * from api_token where id = $1', [id]);
      assert.equal(row?.token_hash, createHash('sha256').update(token).digest('hex'));
      assert.ok(!JSON.stringify(row).includes(token.split('.')[2] ?? token));

      // The team token acts as a member of its team.
      assert.equal((await server.post(`/api/v1/organization/${mine}/workspace`, resourceDocument('workspace', { name: `t-${randomUUID()}` }), { token })).status, 201);
      assertError(await server.get(`/api/v1/organization/${theirs}`, { token }), 404);

      const listed = await server.get(teamTokens, { token: member });
      assert.equal(listed.status, 200);
      const entry = (listed.body as { id: string }[]).find((t) => t.id === id);
      assert.deepEqual(entry, { id, ...rest });
      assert.ok(!listed.text.includes(token));
    });

    it('issues a token that never expires when days, hours and minutes are all zero', async () => {
      const created = await server.post(teamTokens, { description: 'forever', days: 0, hours: '0', minutes: 0, group }, { token: member, headers: { 'content-type': 'application/json' } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.expiresAt, null);
      assert.equal(decodeJwt(created.body.token).exp, undefined);
      assert.equal((await server.get(`/api/v1/organization/${mine}`, { token: created.body.token })).status, 200);
    });

    it('refuses bad token requests with a clear 400, and groups the caller is not in with 403', async () => {
      const post = (body: unknown) => server.post(teamTokens, body, { token: member });
      assert.match(assertError(await post({ description: 'd', group, days: -1 }), 400, '/days')[0]?.detail ?? '', /zero or more/);
      assertError(await post({ description: 'd', group, hours: 'soon' }), 400, '/hours');
      assertError(await post({ description: 'd', group, minutes: 1.5 }), 400, '/minutes');
      assertError(await post({ description: 'd', group, days: 100000 }), 400, '/days');
      assertError(await post({ group, days: 1 }), 400, '/description');
      assertError(await post({ description: 'd', days: 1 }), 400, '/group');
      assertError(await post({ description: 'd', group, days: 1, scope: 'all' }), 400, '/scope');
      assertError(await post({ description: 'd', group, token: 'mine' }), 400, '/token');
      assertError(await post([]), 400);
      assertError(await server.request('POST', teamTokens, { token: member, raw: '{"description":', headers: { 'content-type': 'application/json' } }), 400);
      assertError(await server.request('POST', teamTokens, { token: member, raw: 'description=d', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415);
      assertError(await post({ description: 'd', group: 'someone-elses', days: 1 }), 403);
      const byAdmin = await server.post(teamTokens, { description: 'd', group: 'someone-elses', days: 1 });
      assert.equal(byAdmin.status, 201, byAdmin.text);
      assert.ok(!(await server.get(teamTokens, { token: member })).body.some((t: { id: string }) => t.id === byAdmin.body.id));
      assert.ok((await server.get(teamTokens)).body.some((t: { id: string }) => t.id === byAdmin.body.id));
    });

    it('revokes a team token with 202: 401 at once, gone from the list, and only for its group members or administrators', async () => {
      const { id, token } = (await server.post(teamTokens, { description: 'revoke me', days: 1, group }, { token: member })).body as { id: string; token: string };
      assert.equal((await server.get(`/api/v1/organization/${mine}`, { token })).status, 200);
      const outsider = await server.token({ groups: ['someone-else'] });
      assertError(await server.delete(`${teamTokens}/${id}`, { token: outsider }), 404);
      assertError(await server.delete(`${teamTokens}/${randomUUID()}`, { token: member }), 404);
      const revoked = await server.delete(`${teamTokens}/${id}`, { token: member });
      assert.equal(revoked.status, 202, revoked.text);
      assert.equal(revoked.text, '');
      assertRefused(await server.get(`/api/v1/organization/${mine}`, { token }), /revoked/);
      assert.ok(!(await server.get(teamTokens, { token: member })).body.some((t: { id: string }) => t.id === id));
      assertError(await server.delete(`${teamTokens}/${id}`, { token: member }), 404);
    });

    it('drops a team token from the list and refuses it once its record has expired', async () => {
      const { id, token } = (await server.post(teamTokens, { description: 'short-lived', minutes: 5, group }, { token: member })).body as { id: string; token: string };
      assert.equal((await server.get(`/api/v1/organization/${mine}`, { token })).status, 200);
      // Five minutes are too long to wait: the record is moved into the past instead.
      assert.equal(await server.execute('update api_token set expires_at = $1 where id = $2', [new Date(Date.now() - 1000).toISOString(), id]), 1);
      assert.ok(!(await server.get(teamTokens, { token: member })).body.some((t: { id: string }) => t.id === id));
      await sleep(600);
      assertRefused(await server.get(`/api/v1/organization/${mine}`, { token }), /revoked/);
    });

    it('refuses expired, forged and unsigned tokens with 401 and WWW-Authenticate', async () => {
      assertRefused(await server.get('/api/v1/organization', { token: await server.token({ groups: ['STRATUM_ADMIN'], ttlSeconds: -60 }) }), /expired/);
      // A tracked token the server never issued: right key, no record.
      const [header, payload] = member.split('.');
      const forgedPayload = Buffer.from(JSON.stringify({ ...decodeJwt(member), stratum_token: 'team', jti: randomUUID() })).toString('base64url');
      assertRefused(await server.get('/api/v1/organization', { token: `${header}.${forgedPayload}.${member.split('.')[2]}` }), /not valid/);
      const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
      assertRefused(await server.get('/api/v1/organization', { token: unsigned }), /not valid/);
      const noResponse = await server.get('/api/v1/organization', { token: null });
      assert.equal(noResponse.status, 401);
      assert.equal(noResponse.headers.get('www-authenticate'), 'Bearer');
    });

    it('issues, lists and revokes personal tokens that act as their creator with the groups it had', async () => {
      const subject = `person-${randomUUID()}@example.com`;
      const person = await server.token({ subject, groups: [group] });
      const created = await server.post('/pat/v1', { description: 'laptop', days: 30, hours: 0, minutes: 0 }, { token: person });
      assert.equal(created.status, 201, created.text);
      const { id, token } = created.body as { id: string; token: string };
      assert.equal(decodeJwt(token).sub, subject);
      assert.equal(created.body.group, undefined);
      assert.equal((await server.get(`/api/v1/organization/${mine}`, { token })).status, 200);
      const made = await server.post(`/api/v1/organization/${mine}/workspace`, resourceDocument('workspace', { name: `p-${randomUUID()}` }), { token });
      assert.equal(made.body.data.attributes.createdBy, subject);

      assert.deepEqual((await server.get('/pat/v1', { token: person })).body.map((t: { id: string }) => t.id), [id]);
      const someoneElse = await server.token({ groups: [group] });
      assert.deepEqual((await server.get('/pat/v1', { token: someoneElse })).body, []);
      assertError(await server.delete(`/pat/v1/${id}`, { token: someoneElse }), 404);
      assertError(await server.post('/pat/v1', { description: 'x', group }, { token: person }), 400, '/group');
      assert.equal((await server.delete(`/pat/v1/${id}`, { token: person })).status, 202);
      assertRefused(await server.get(`/api/v1/organization/${mine}`, { token }), /revoked/);
      assert.deepEqual((await server.get('/pat/v1', { token: person })).body, []);
    });

    it('keeps tokens out of the log', async () => {
      const { token } = (await server.post(teamTokens, { description: 'logged?', days: 1, group }, { token: member })).body as { token: string };
      await server.get(`/api/v1/organization/${mine}`, { token });
      await sleep(100);
      const logs = server.logs.join('\n');
      for (const secret of [token, member, server.adminToken]) assert.ok(!logs.includes(secret.split('.')[2] ?? secret));
    });

    if (kind === 'postgres') {
      it('stops a revoked token within 1 second on a second server sharing the database', async () => {
        const second = await TestServer.start(kind, {
          DATABASE_URL: server.env.DATABASE_URL ?? '',
          STRATUM_TOKEN_KEY: server.env.STRATUM_TOKEN_KEY ?? '',
          STRATUM_ENCRYPTION_KEY: server.env.STRATUM_ENCRYPTION_KEY ?? '',
        });
        try {
          const { id, token } = (await server.post(teamTokens, { description: 'shared', days: 1, group }, { token: member })).body as { id: string; token: string };
          // The second server has seen the token live, so any cache it keeps holds it.
          assert.equal((await second.get(`/api/v1/organization/${mine}`, { token })).status, 200);
          assert.equal((await server.delete(`${teamTokens}/${id}`, { token: member })).status, 202);
          await sleep(1000);
          assertRefused(await second.get(`/api/v1/organization/${mine}`, { token }), /revoked/);
        } finally {
          await second.stop();
        }
      });
    }
  });
}

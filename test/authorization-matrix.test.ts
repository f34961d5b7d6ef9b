import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { TokenSigner } from '../src/auth/tokens.ts';
import { adminGroup, createCollection, createOrganization, createRecord, createTemplate, createVcs, createWorkspace, storeKinds, TestServer, type Response } from './harness.ts';

/**
 * Every endpoint of the interface, and those decisions.md adds, called by every kind of caller:
 * each cell asserts the exact status, and every read asserts no id of another organization leaks.
 */

const callers = [
  'no token',
  'malformed token',
  'token signed by another key',
  'expired token',
  'revoked team token',
  'alg none token',
  'non-member',
  'member without the flag',
  'member with the flag',
  'administrator',
] as const;
type CallerKind = (typeof callers)[number];
const refusedCallers = callers.slice(0, 6);

type Capability = 'manageTemplate' | 'manageCollection' | 'manageWorkspace' | 'manageVcs';
/** The flag that writes each type need; undefined for the types only administrators write. */
const capabilityOf: Record<string, Capability | undefined> = {
  organization: undefined,
  team: undefined,
  template: 'manageTemplate',
  collection: 'manageCollection',
  item: 'manageCollection',
  reference: 'manageCollection',
  workspace: 'manageWorkspace',
  variable: 'manageWorkspace',
  vcs: 'manageVcs',
};
const allFlags = ['manageState', 'manageWorkspace', 'manageModule', 'manageProvider', 'manageVcs', 'manageTemplate', 'manageJob', 'manageCollection', 'planJob', 'approveJob'];

/** One organization with a record of every type, and teams granting or withholding one flag. */
interface Fixture {
  ids: Record<string, string>;
  /** The second workspace, for a new reference (one per collection and workspace). */
  spareWorkspace: string;
  tokens: Record<CallerKind, string | null>;
  withGroup: string;
  memberSubject: string;
}

interface Endpoint {
  method: string;
  path: string;
  /** The type whose records the endpoint reads or writes. */
  type: string;
  /** What an allowed caller gets. */
  success: number;
}

/** The type named by a path parameter like `{workspaceId}`. */
const typeOfParameter = (parameter: string) => parameter.replace(/^\{|Id\}$/g, '');

function endpointsOf(openApi: { paths: Record<string, Record<string, unknown>> }): Endpoint[] {
  const endpoints: Endpoint[] = [];
  // The token endpoints, outside /api/v1, have their own cells below.
  for (const [path, operations] of Object.entries(openApi.paths).filter(([path]) => path.startsWith('/api/v1'))) {
    const segments = path.split('/');
    const relationship = segments.at(-2) === 'relationships';
    const last = relationship ? (segments.at(-3) ?? '') : (segments.at(-1) ?? '');
    const type = last.startsWith('{') ? typeOfParameter(last) : last;
    for (const method of Object.keys(operations).filter((m) => m !== 'parameters')) {
      let success = { get: 200, post: 201, patch: 204, delete: 204 }[method] ?? 0;
      // Only a workspace's VCS link and a reference's workspace can be relinked; a record never moves to another parent.
      if (relationship && method === 'patch' && type !== 'workspace' && type !== 'reference') success = 403;
      endpoints.push({ method: method.toUpperCase(), path, type, success });
    }
  }
  return endpoints;
}

function expectedStatus(endpoint: Endpoint, caller: CallerKind): number {
  if ((refusedCallers as readonly string[]).includes(caller)) return 401;
  const organizationList = endpoint.path === '/api/v1/organization';
  const write = endpoint.method !== 'GET';
  if (caller === 'administrator') return endpoint.success;
  if (organizationList) return write ? 403 : 200;
  if (caller === 'non-member') return 404;
  if (!write) return endpoint.success;
  if (endpoint.success === 403) return 403;
  return caller === 'member with the flag' && capabilityOf[endpoint.type] !== undefined ? endpoint.success : 403;
}

for (const kind of storeKinds) {
  describe(`authorization matrix (${kind})`, () => {
    let server: TestServer;
    let foreignIds: string[];
    let shared: Fixture;
    let endpoints: Endpoint[];
    const strangerSigner = new TokenSigner(randomBytes(32).toString('base64url'), adminGroup);

    /** An organization with one record of every type, and the tokens of every kind of caller. */
    async function fixture(capability: Capability | undefined): Promise<Fixture> {
      const organization = await createOrganization(server);
      const workspace = await createWorkspace(server, organization);
      const spareWorkspace = await createWorkspace(server, organization);
      const vcs = await createVcs(server, organization);
      const linked = await server.request('PATCH', `/api/v1/organization/${organization}/workspace/${workspace}/relationships/vcs`, { body: { data: { type: 'vcs', id: vcs } } });
      assert.equal(linked.status, 204);
      const collection = await createCollection(server, organization);
      const withGroup = `with-${randomUUID()}`;
      const withoutGroup = `without-${randomUUID()}`;
      const flags = (held: (flag: string) => boolean) => Object.fromEntries(allFlags.map((flag) => [flag, held(flag)]));
      // Without a capability to withhold (administrator-only types) the members hold every flag and must still be refused.
      const withTeam = await createRecord(server, `/api/v1/organization/${organization}/team`, 'team', { name: withGroup, ...flags((f) => capability === undefined || f === capability) });
      await createRecord(server, `/api/v1/organization/${organization}/team`, 'team', { name: withoutGroup, ...flags((f) => capability === undefined || f !== capability) });
      const ids: Record<string, string> = {
        organization,
        workspace,
        vcs,
        collection,
        template: await createTemplate(server, organization),
        variable: await createRecord(server, `/api/v1/workspace/${workspace}/variable`, 'variable', { key: 'SECRET', value: randomUUID(), category: 'ENV', sensitive: true }),
        item: await createRecord(server, `/api/v1/organization/${organization}/collection/${collection}/item`, 'item', { key: 'k', value: 'v', category: 'TERRAFORM' }),
        reference: await createRecord(server, `/api/v1/organization/${organization}/collection/${collection}/reference`, 'reference', {}, {
          relationships: { workspace: { data: { type: 'workspace', id: workspace } } },
        }),
        team: withTeam,
      };
      const memberSubject = `member-${randomUUID()}@example.com`;
      const teamToken = await server.post('/access-token/v1/teams', { description: 'revoked', days: 1, group: withGroup });
      assert.equal((await server.delete(`/access-token/v1/teams/${String(teamToken.body.id)}`)).status, 202);
      const valid = await server.token({ groups: [withGroup] });
      const [, payload] = valid.split('.');
      return {
        ids,
        spareWorkspace,
        withGroup,
        memberSubject,
        tokens: {
          'no token': null,
          'malformed token': 'not-a-token',
          'token signed by another key': (await strangerSigner.sign({ subject: 'intruder', groups: [adminGroup], ttlSeconds: 3600 })).token,
          'expired token': await server.token({ groups: [adminGroup], ttlSeconds: -60 }),
          'revoked team token': String(teamToken.body.token),
          'alg none token': `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload ?? ''}.`,
          'non-member': await server.token({ groups: [`outsider-${randomUUID()}`] }),
          'member without the flag': await server.token({ groups: [withoutGroup] }),
          'member with the flag': await server.token({ subject: memberSubject, groups: [withGroup] }),
          administrator: server.adminToken,
        },
      };
    }

    function bodyFor(endpoint: Endpoint, target: Fixture): unknown {
      const id = target.ids[endpoint.type];
      if (endpoint.path.endsWith('/relationships/{relationship}')) {
        if (endpoint.type === 'workspace') return { data: null };
        if (endpoint.type === 'reference') return { data: { type: 'workspace', id: target.ids.workspace } };
        return { data: null };
      }
      if (endpoint.method === 'PATCH') {
        const attributes = endpoint.type === 'team' ? { manageState: true } : { description: 'changed' };
        return { data: { type: endpoint.type, id, attributes } };
      }
      const unique = randomUUID();
      const created: Record<string, Record<string, unknown>> = {
        organization: { name: `o-${unique}` },
        template: { name: `t-${unique}`, tcl: Buffer.from('flow: []\n').toString('base64') },
        collection: { name: `c-${unique}` },
        item: { key: `k${unique.slice(0, 8)}`, value: 'v', category: 'TERRAFORM' },
        reference: {},
        workspace: { name: `w-${unique}` },
        variable: { key: `V_${unique.slice(0, 8)}`, value: 'v', category: 'ENV' },
        vcs: { name: `v-${unique}`, vcsType: 'GITHUB' },
        team: { name: `team-${unique}` },
      };
      const relationships = endpoint.type === 'reference' ? { relationships: { workspace: { data: { type: 'workspace', id: target.spareWorkspace } } } } : {};
      return { data: { type: endpoint.type, attributes: created[endpoint.type], ...relationships } };
    }

    function pathFor(endpoint: Endpoint, target: Fixture): string {
      const relationship = endpoint.type === 'organization' ? 'workspace' : endpoint.type === 'workspace' ? 'vcs' : endpoint.type === 'reference' ? 'workspace' : undefined;
      return endpoint.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
        if (name === 'relationship') return relationship ?? parentOf(endpoint.type);
        const value = target.ids[typeOfParameter(`{${name}}`)];
        if (value === undefined) throw new Error(`no fixture for ${name} in ${endpoint.path}`);
        return value;
      });
    }

    const parents: Partial<Record<string, string>> = { item: 'collection', variable: 'workspace' };
    const parentOf = (type: string) => parents[type] ?? 'organization';

    function call(endpoint: Endpoint, target: Fixture, caller: CallerKind): Promise<Response> {
      const body = endpoint.method === 'POST' || endpoint.method === 'PATCH' ? bodyFor(endpoint, target) : undefined;
      return server.request(endpoint.method, pathFor(endpoint, target), { token: target.tokens[caller], ...(body === undefined ? {} : { body }) });
    }

    function check(response: Response, expected: number, caller: CallerKind, cell: string): void {
      assert.equal(response.status, expected, `${cell}: ${response.text}`);
      if (expected === 401) assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/, cell);
      // Administrators see every organization; nobody else may see a record of one it is not a member of.
      if (caller === 'administrator') return;
      for (const id of foreignIds) assert.ok(!response.text.includes(id), `${cell} shows another organization's record ${id}`);
    }

    before(async () => {
      server = await TestServer.start(kind);
      const foreign = await fixture(undefined);
      foreignIds = Object.values(foreign.ids);
      shared = await fixture(undefined);
      endpoints = endpointsOf((await server.get('/api/openapi.json', { token: null })).body);
      assert.ok(endpoints.length > 100, `only ${endpoints.length} endpoints`);
    });
    after(async () => {
      await server.stop();
    });

    it('answers every JSON:API endpoint with the status each caller is owed', async () => {
      for (const endpoint of endpoints) {
        const write = endpoint.method !== 'GET';
        // Writes need teams that grant or withhold the one flag the endpoint's type needs.
        const refused = write ? await fixture(capabilityOf[endpoint.type]) : shared;
        for (const caller of callers) {
          const expected = expectedStatus(endpoint, caller);
          // A write that is allowed changes or deletes its target: it gets an organization of its own.
          const target = write && expected < 300 ? await fixture(capabilityOf[endpoint.type]) : refused;
          check(await call(endpoint, target, caller), expected, caller, `${caller} ${endpoint.method} ${endpoint.path}`);
        }
      }
    });

    it('answers every token endpoint with the status each caller is owed', async () => {
      const target = await fixture(undefined);
      const { organization, workspace } = target.ids;
      const expected = (allowed: number, nonMember: number, memberWithout = nonMember) => (caller: CallerKind) =>
        (refusedCallers as readonly string[]).includes(caller) ? 401 : caller === 'non-member' ? nonMember : caller === 'member without the flag' ? memberWithout : allowed;
      const liveTeamToken = async () => String((await server.post('/access-token/v1/teams', { description: 'x', days: 1, group: target.withGroup })).body.id);
      const memberPersonalToken = async () =>
        String((await server.post('/pat/v1', { description: 'x', days: 1 }, { token: target.tokens['member with the flag'] })).body.id);
      const cells: { name: string; send: (token: string | null) => Promise<Response>; status: (caller: CallerKind) => number }[] = [
        { name: 'POST team token', send: (token) => server.post('/access-token/v1/teams', { description: 'd', days: 1, group: target.withGroup }, { token }), status: expected(201, 403) },
        { name: 'GET team tokens', send: (token) => server.get('/access-token/v1/teams', { token }), status: expected(200, 200) },
        { name: 'DELETE team token', send: async (token) => server.delete(`/access-token/v1/teams/${await liveTeamToken()}`, { token }), status: expected(202, 404) },
        { name: 'GET current-teams', send: (token) => server.get('/access-token/v1/teams/current-teams', { token }), status: expected(200, 200) },
        { name: 'GET permissions', send: (token) => server.get(`/access-token/v1/teams/permissions/organization/${organization}`, { token }), status: expected(200, 404, 200) },
        {
          name: 'GET workspace permissions',
          send: (token) => server.get(`/access-token/v1/teams/permissions/organization/${organization}/workspace/${workspace}`, { token }),
          status: expected(200, 404, 200),
        },
        { name: 'POST personal token', send: (token) => server.post('/pat/v1', { description: 'd', days: 1 }, { token }), status: expected(201, 201) },
        { name: 'GET personal tokens', send: (token) => server.get('/pat/v1', { token }), status: expected(200, 200) },
        { name: 'DELETE personal token', send: async (token) => server.delete(`/pat/v1/${await memberPersonalToken()}`, { token }), status: expected(202, 404) },
      ];
      for (const cell of cells) {
        for (const caller of callers) {
          const response = await cell.send(target.tokens[caller]);
          check(response, cell.status(caller), caller, `${caller} ${cell.name}`);
          if (response.status === 201) assert.equal(typeof decodeJwt(String(response.body.token)).jti, 'string');
        }
      }
      // Lists show only what the caller may see: an outsider sees none of the group's tokens.
      assert.deepEqual((await server.get('/access-token/v1/teams', { token: target.tokens['non-member'] })).body, []);
    });
  });
}

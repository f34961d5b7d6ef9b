import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import { stratumAsync } from './cli-run.ts';
import { data, graphql } from './graphql-helpers.ts';
import {
  assertError,
  createOrganization,
  createRecord,
  describeEachStore,
  eventually,
  resourceDocument,
  type TestServer,
} from './harness.ts';

const literal = (text: string) => JSON.stringify(text);

interface AuditEvent {
  id: string;
  attributes: Record<string, string | null>;
}

describeEachStore('the audit trail of an organization', (context) => {
  let organization: string;
  let other: string;
  let workspace: string;
  let variable: string;
  let auditor: string;
  let member: string;
  let outsider: string;
  const secretValue = `hunter-${randomUUID()}`;
  const trail = (query = '', org = organization) => `/api/v1/organization/${org}/auditEvent${query === '' ? '' : `?${query}`}`;
  const events = (response: { body: { data: AuditEvent[] } }) => response.body.data;

  before(async () => {
    const { server } = context;
    organization = await createOrganization(server);
    other = await createOrganization(server);
    const auditors = `auditors-${randomUUID()}`;
    const plain = `plain-${randomUUID()}`;
    const others = `others-${randomUUID()}`;
    await createRecord(server, trail().replace('auditEvent', 'team'), 'team', { name: auditors, readAuditTrail: true });
    // A team that may do everything else in the organization, but not read its trail.
    await createRecord(server, trail().replace('auditEvent', 'team'), 'team', { name: plain, role: 'admin' });
    await createRecord(server, `/api/v1/organization/${other}/team`, 'team', { name: others, readAuditTrail: true });
    auditor = await server.token({ groups: [auditors] });
    member = await server.token({ groups: [plain] });
    outsider = await server.token({ groups: [others] });
    workspace = await createRecord(server, `/api/v1/organization/${organization}/workspace`, 'workspace', {
      name: `ws-${randomUUID()}`,
      source: 'https://example.com/repo.git',
    });
    variable = await createRecord(server, `/api/v1/organization/${organization}/workspace/${workspace}/variable`, 'variable', {
      key: 'password',
      category: 'TERRAFORM',
      value: secretValue,
      sensitive: true,
    });
    const changed = await server.patch(`/api/v1/organization/${organization}/workspace/${workspace}/variable/${variable}`, {
      data: { type: 'variable', id: variable, attributes: { value: `${secretValue}-2`, description: 'rotated' } },
    });
    assert.ok(changed.status === 200 || changed.status === 204, changed.text);
    await createRecord(server, `/api/v1/organization/${other}/workspace`, 'workspace', { name: 'elsewhere' });
  });

  it('administrators read the changes of the organization, newest first, each with its actor and request', async () => {
    const response = await context.server.get(trail());
    assert.equal(response.status, 200, response.text);
    const rows = events(response);
    const ids = rows.map((row) => row.id);
    assert.deepEqual(ids, [...ids].sort().reverse());
    assert.ok(rows.every((row) => row.attributes.recordType !== 'workspace' || row.attributes.recordId !== 'elsewhere'));
    const update = rows.find((row) => row.attributes.recordId === variable && row.attributes.action === 'update');
    assert.ok(update !== undefined, response.text);
    assert.equal(update.attributes.recordType, 'variable');
    assert.equal(update.attributes.actorKind, 'user');
    assert.equal(update.attributes.transport, 'jsonapi');
    assert.match(String(update.attributes.at), /^\d{4}-\d\d-\d\dT/);
    assert.ok(update.attributes.requestId !== null);
    assert.equal(update.attributes.clientAddress, '127.0.0.1');
    assert.deepEqual(JSON.parse(String(update.attributes.attributes)), {
      value: { sensitive: true },
      description: { before: null, after: 'rotated' },
    });
    // Nothing of another organization, and never the secret itself.
    const created = await context.server.get(`/api/v1/organization/${other}/auditEvent`);
    assert.ok(events(created).every((row) => !ids.includes(row.id)));
    assert.ok(!response.text.includes(secretValue));
    const one = await context.server.get(`/api/v1/organization/${organization}/auditEvent/${update.id}`);
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.data.type, 'audit_event');
  });

  it('a team with readAuditTrail reads it with filters and pages; a secret shows only as changed', async () => {
    const filter = encodeURIComponent(`recordType==variable;recordId==${variable};action=in=(create,update)`);
    const response = await context.server.get(trail(`filter[audit_event]=${filter}`), { token: auditor });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      events(response).map((row) => row.attributes.action),
      ['update', 'create'],
    );
    assert.deepEqual(JSON.parse(String(events(response)[1]?.attributes.attributes)).value, { sensitive: true });
    assert.ok(!response.text.includes(secretValue));
    const byActor = await context.server.get(
      trail(`filter[audit_event]=${encodeURIComponent('actorKind==user;actorSubject==*@example.com')}`),
      {
        token: auditor,
      },
    );
    assert.ok(events(byActor).length >= 3, byActor.text);
    const first = await context.server.get(trail('page[size]=2&page[number]=1'), { token: auditor });
    const second = await context.server.get(trail('page[size]=2&page[number]=2'), { token: auditor });
    const all = await context.server.get(trail(), { token: auditor });
    assert.deepEqual(
      [...events(first), ...events(second)].map((row) => row.id),
      events(all)
        .slice(0, 4)
        .map((row) => row.id),
    );
  });

  it('filters on time with comparison operators', async () => {
    const all = events(await context.server.get(trail()));
    const middle = all[Math.floor(all.length / 2)];
    assert.ok(middle !== undefined);
    const at = String(middle.attributes.at);
    const since = events(await context.server.get(trail(`filter[audit_event]=${encodeURIComponent(`at=ge='${at}'`)}`)));
    const before = events(await context.server.get(trail(`filter[audit_event]=${encodeURIComponent(`at=lt='${at}'`)}`)));
    assert.ok(since.every((row) => String(row.attributes.at) >= at));
    assert.ok(before.every((row) => String(row.attributes.at) < at));
    assert.equal(since.length + before.length, all.length);
    assert.ok(since.some((row) => row.id === middle.id));
  });

  it('GraphQL reads the same trail, gated the same way', async () => {
    const query = `{ organization(ids: [${literal(organization)}]) { edges { node { auditEvent(filter: ${literal(`recordId==${variable}`)}) { edges { node { id action attributes } } } } } } }`;
    const read = await data(context.server, query, { token: auditor });
    const nodes = read.organization.edges[0].node.auditEvent.edges.map((edge: { node: { action: string } }) => edge.node.action);
    assert.deepEqual(nodes, ['update', 'create']);
    const refused = await data(context.server, query, { token: member });
    assert.deepEqual(refused.organization.edges[0].node.auditEvent.edges, []);
    const stranger = await data(context.server, query, { token: outsider });
    assert.deepEqual(stranger.organization.edges, []);
  });

  it('a member without the flag finds none, a member of another organization and a forged token nothing at all', async () => {
    const all = events(await context.server.get(trail()));
    const one = all[0];
    assert.ok(one !== undefined);
    const unflagged = await context.server.get(trail(), { token: member });
    assert.equal(unflagged.status, 200, unflagged.text);
    assert.deepEqual(events(unflagged), []);
    assertError(await context.server.get(`${trail()}/${one.id}`, { token: member }), 404);
    assertError(await context.server.get(trail(), { token: outsider }), 404);
    assertError(await context.server.get(`${trail()}/${one.id}`, { token: outsider }), 404);
    // The other organization's auditors read their own trail only.
    const theirs = await context.server.get(trail('', other), { token: outsider });
    assert.equal(theirs.status, 200, theirs.text);
    assert.ok(events(theirs).length > 0);
    assert.ok(events(theirs).every((row) => !all.some((mine) => mine.id === row.id)));
    const forged = `${auditor.slice(0, -4)}AAAA`;
    assertError(await context.server.get(trail(), { token: forged }), 401);
    // Nor does the instance-wide view open to them.
    for (const token of [auditor, member]) {
      const instance = await context.server.get('/api/v1/audit_trail', { token });
      assert.equal(instance.status, 200, instance.text);
      assert.deepEqual(events(instance), []);
    }
  });

  it('administrators read every organization and the changes of none in the instance-wide view', async () => {
    const action = await context.server.post('/api/v1/action', {
      data: {
        type: 'action',
        id: `audit.${randomUUID()}`,
        attributes: { name: 'n', label: 'l', category: 'c', type: 'Workspace/Action', action: 'eA==', version: '1' },
      },
    });
    assert.equal(action.status, 201, action.text);
    const response = await context.server.get('/api/v1/audit_trail?page[size]=1000');
    assert.equal(response.status, 200, response.text);
    const rows = events(response);
    const organizations = new Set(rows.map((row) => row.attributes.organizationId));
    assert.ok(organizations.has(organization) && organizations.has(other) && organizations.has(null), [...organizations].join());
    const created = rows.find((row) => row.attributes.recordId === action.body.data.id);
    assert.equal(created?.attributes.organizationId, null);
    assert.equal(created.attributes.action, 'create');
    const filtered = await context.server.get(`/api/v1/audit_trail?filter[audit_trail]=${encodeURIComponent(`organizationId==${other}`)}`);
    assert.ok(events(filtered).length > 0 && events(filtered).every((row) => row.attributes.organizationId === other));
  });

  it('records a team token issued and revoked, with its kind, team and description, never the token', async () => {
    const { server } = context;
    const group = `ci-${randomUUID()}`;
    await createRecord(server, `/api/v1/organization/${organization}/team`, 'team', { name: group });
    const issued = await server.post('/access-token/v1/teams', { description: 'deploys', days: 30, group });
    assert.equal(issued.status, 201, issued.text);
    const id = String(issued.body.id);
    assert.equal((await server.delete(`/access-token/v1/teams/${id}`)).status, 202);
    const filter = encodeURIComponent(`recordId==${id}`);
    const response = await server.get(`/api/v1/audit_trail?filter[audit_trail]=${filter}&page[size]=100`);
    assert.equal(response.status, 200, response.text);
    const rows = events(response);
    assert.deepEqual(
      rows.map((row) => row.attributes.action),
      ['revoke', 'issue'],
      response.text,
    );
    const [revoked, created] = rows;
    assert.ok(revoked !== undefined && created !== undefined);
    assert.equal(created.attributes.actorKind, 'user');
    assert.equal(created.attributes.transport, 'jsonapi');
    const shown = JSON.parse(String(created.attributes.attributes)) as Record<string, { after?: unknown }>;
    assert.equal(shown.kind?.after, 'team');
    assert.equal(shown.team?.after, group);
    assert.equal(shown.description?.after, 'deploys');
    assert.ok(
      typeof (JSON.parse(String(revoked.attributes.attributes)) as { revokedAt?: { after?: unknown } }).revokedAt?.after === 'string',
    );
    // The token itself, or any part of its signature, is in no change.
    const token = String(issued.body.token);
    assert.ok(!response.text.includes(token) && !response.text.includes(token.split('.')[2] ?? token), response.text);
  });

  it('refuses every write of the trail, through every door', async () => {
    const [one] = events(await context.server.get(trail()));
    assert.ok(one !== undefined);
    const before = await context.server.query('select count(*) as n from record_change');
    assertError(await context.server.post(trail(), { data: { type: 'audit_event', attributes: { action: 'create' } } }), 405);
    assertError(await context.server.patch(`${trail()}/${one.id}`, { data: { type: 'audit_event', id: one.id, attributes: {} } }), 405);
    assertError(await context.server.delete(`${trail()}/${one.id}`), 405);
    assertError(await context.server.delete(`/api/v1/audit_trail/${one.id}`), 405);
    const mutation = await graphql(
      context.server,
      `mutation { organization(ids: [${literal(organization)}]) { edges { node { auditEvent(op: DELETE, ids: [${literal(one.id)}]) { edges { node { id } } } } } } }`,
    );
    assert.match(mutation.text, /made and changed by the server/);
    const atomic = await context.server.request('POST', '/api/v1/operations', {
      body: { 'atomic:operations': [{ op: 'remove', ref: { type: 'audit_event', id: one.id } }] },
      headers: {
        'content-type': 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"',
        accept: 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"',
      },
    });
    assertError(atomic, 403);
    assert.deepEqual(await context.server.query('select count(*) as n from record_change'), before);
    assert.equal((await context.server.get(`${trail()}/${one.id}`)).status, 200);
  });

  it('records the connecting address, not what X-Forwarded-For claims, without STRATUM_TRUST_PROXY', async () => {
    const id = await createTagBehindProxy(context.server, organization);
    const [change] = await context.server.query('select client_address from record_change where record_id = $1', [id]);
    assert.equal(change?.client_address, '127.0.0.1');
  });

  it('`stratum audit` lists and exports the trail beside the running server, never a secret', async () => {
    const env = { ...context.server.env, STRATUM_AUDIT_RETENTION_DAYS: '' };
    const exported = await stratumAsync(['audit', 'export', '--organization', organization, '--type', 'variable'], env);
    assert.equal(exported.status, 0, exported.stderr);
    const lines = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      lines.map((line) => [line.recordId, line.action]),
      [
        [variable, 'update'],
        [variable, 'create'],
      ],
    );
    assert.ok(lines.every((line) => line.organizationId === organization && line.recordType === 'variable'));
    assert.deepEqual((lines[0]?.attributes as Record<string, unknown>).value, { sensitive: true });
    assert.ok(!exported.stdout.includes(secretValue));
    const future = await stratumAsync(['audit', 'export', '--since', '2999-01-01'], env);
    assert.equal(future.stdout, '');
    const past = await stratumAsync(['audit', 'export', '--until', '2000-01-01T00:00:00Z'], env);
    assert.equal(past.stdout, '');
    const everything = await stratumAsync(['audit', 'export'], env);
    const all = everything.stdout.trim().split('\n');
    assert.ok(all.length > lines.length && new Set(all).size === all.length);
    const listed = await stratumAsync(['audit', 'list', '--limit', '2', '--organization', organization], env);
    assert.equal(listed.status, 0, listed.stderr);
    const rows = listed.stdout.trim().split('\n');
    assert.match(rows[0] ?? '', /^AT +ORGANIZATION +ACTOR +ACTION +TYPE +RECORD +CHANGED$/);
    assert.equal(rows.length, 3);
    const bad = await stratumAsync(['audit', 'list', '--since', 'yesterday-ish'], env);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /--since must be a date or time/);
  });
});

/** Creates a tag with a request that says it came through a proxy for 203.0.113.9; answers its id. */
async function createTagBehindProxy(server: TestServer, organization: string): Promise<string> {
  const response = await server.post(`/api/v1/organization/${organization}/tag`, resourceDocument('tag', { name: `t-${randomUUID()}` }), {
    headers: { 'x-forwarded-for': '203.0.113.9' },
  });
  assert.equal(response.status, 201, response.text);
  return response.body.data.id as string;
}

/** A UUIDv7 of a moment long past, as a change made then would have. */
function idAt(time: Date, serial: number): string {
  const hex = time.getTime().toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-${serial.toString(16).padStart(12, '0')}`;
}

describeEachStore(
  'keeping the audit trail: retention and the trusted proxy',
  { env: { STRATUM_AUDIT_RETENTION_DAYS: '2', STRATUM_AUDIT_PRUNE_INTERVAL_MS: '200', STRATUM_TRUST_PROXY: '127.0.0.1' } },
  (context) => {
    it('prunes the changes older than the retention, in batches, and keeps the others', async () => {
      const organization = await createOrganization(context.server);
      const old = new Date(Date.now() - 3 * 86_400_000);
      const rows = 2500;
      const values = Array.from(
        { length: rows },
        (_, i) =>
          `('${idAt(old, i)}', '${old.toISOString()}', '${organization}', 'service', 'test', 'tag', 'gone-${i}', 'delete', 'console', '{}')`,
      );
      await context.server.execute(
        `insert into record_change (id, at, organization_id, actor_kind, actor_subject, record_type, record_id, action, transport, attributes) values ${values.join(', ')}`,
      );
      await eventually('the old changes pruned', async () => {
        const [left] = await context.server.query("select count(*) as n from record_change where record_id like 'gone-%'");
        assert.equal(Number(left?.n), 0);
      });
      // The organization's own creation, a moment ago, is kept.
      const [kept] = await context.server.query('select count(*) as n from record_change where record_id = $1', [organization]);
      assert.equal(Number(kept?.n), 1);
      // Said once the last batch is done, which may be a moment after the rows are gone.
      await eventually('the pruning logged', () =>
        assert.ok(context.server.logs.some((line) => line.includes('older than the audit retention'))),
      );
    });

    it('records the address X-Forwarded-For names when the proxy is trusted', async () => {
      const organization = await createOrganization(context.server);
      const id = await createTagBehindProxy(context.server, organization);
      const [change] = await context.server.query('select client_address from record_change where record_id = $1', [id]);
      assert.equal(change?.client_address, '203.0.113.9');
    });
  },
);

describeEachStore('the audit trail through a crash', (context) => {
  it('holds exactly one change per acknowledged write and none for a write that never committed, after a kill -9 in a burst', async () => {
    const acknowledged: string[] = [];
    let refused = 0;
    let killed = false;
    const writer = async (worker: number) => {
      for (let i = 0; !killed; i++) {
        try {
          // Every fifth name repeats one already taken: a write refused (409) and rolled back.
          const name = i % 5 === 4 ? `audit-crash-${worker}-0` : `audit-crash-${worker}-${i}`;
          const response = await context.server.post('/api/v1/organization', resourceDocument('organization', { name }));
          if (response.status === 201) acknowledged.push(response.body.data.id as string);
          else if (response.status === 409) refused++;
        } catch {
          // The connection drops when the process dies; such a write was never acknowledged.
        }
      }
    };
    const writers = [0, 1, 2, 3, 4, 5].map(writer);
    try {
      await eventually(
        '120 acknowledged creates before the kill',
        () => assert.ok(acknowledged.length >= 120, `only ${acknowledged.length}`),
        { timeoutMs: 20000, intervalMs: 5 },
      );
      await context.server.kill();
    } finally {
      killed = true;
      await Promise.all(writers);
    }
    await context.server.spawn();
    assert.ok(refused > 0);
    const counts = new Map<string, number>();
    for (const row of await context.server.query(
      "select record_id from record_change where record_type = 'organization' and action = 'create'",
    ))
      counts.set(String(row.record_id), (counts.get(String(row.record_id)) ?? 0) + 1);
    const wrong = acknowledged.filter((id) => counts.get(id) !== 1);
    assert.deepEqual(wrong, [], `${wrong.length} of ${acknowledged.length} acknowledged creates have no single change`);
    // Every change names a record that exists: none was left by a write that did not commit.
    for (const [type, table] of [
      ['organization', 'organization'],
      ['template', 'template'],
    ]) {
      const orphans = await context.server.query(
        `select c.record_id from record_change c where c.record_type = $1 and c.action = 'create' and not exists (select 1 from ${table} r where r.id = c.record_id)`,
        [type],
      );
      assert.deepEqual(orphans, [], `changes of ${type} records that do not exist`);
    }
  });
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import {
  assertError,
  createOrganization,
  createRecord,
  createWorkspace,
  describeEachStore,
  resourceDocument,
  statementsOf,
  type TestServer,
} from './harness.ts';

/**
 * The commonest requests under a parent are one statement each. A create's INSERT inserts the row
 * only under a parent the caller can see, and a page's query checks the parent once; whatever else
 * asks for the parent (a team member's permissions, a refusal, an empty page) looks it up, so a
 * missing parent is still the first thing answered. Counted in the server's statement log
 * (STRATUM_LOG_LEVEL=trace).
 */
describeEachStore('the statements of a create and a list', { env: { STRATUM_LOG_LEVEL: 'trace' } }, (context) => {
  const variable = (key: string) => resourceDocument('variable', { key, value: 'v', category: 'ENV' });

  async function workspaceWithTeam(server: TestServer, manageWorkspace: boolean) {
    const organization = await createOrganization(server);
    const workspace = await createWorkspace(server, organization);
    const group = `team-${randomUUID()}`;
    await createRecord(server, `/api/v1/organization/${organization}/team`, 'team', { name: group, manageWorkspace });
    return { workspace, member: await server.token({ groups: [group] }) };
  }

  it('an administrator creates a variable with one INSERT, which checks the workspace itself', async () => {
    const { server } = context;
    const { workspace } = await workspaceWithTeam(server, true);
    const path = `/api/v1/workspace/${workspace}/variable`;
    const { statements, answer } = await statementsOf(server, path, () => server.post(path, variable('REGION')));
    assert.equal(answer.status, 201, answer.text);
    const [insert, change] = statements.map((line) => (JSON.parse(line) as { sql?: string }).sql ?? '');
    if (context.kind === 'postgres') {
      // The change row the audit trail keeps rides in the INSERT's own statement.
      assert.equal(statements.length, 1, statements.join('\n'));
      assert.match(insert ?? '', /^with "inserted" as \(insert into "variable" .* where exists \(select 1 as "one" from "workspace"/);
      assert.match(insert ?? '', /"recorded" as \(insert into "record_change" /);
    } else {
      // The INSERT, then its change row, in the same transaction: one flush to disk.
      assert.equal(statements.length, 2, statements.join('\n'));
      assert.match(insert ?? '', /^insert into "variable" .* where exists \(select 1 as "one" from "workspace"/);
      assert.match(change ?? '', /^insert into "record_change" /);
    }
    const read = await server.get(`${path}/${answer.body.data.id as string}`);
    assert.equal(read.body.data.attributes.key, 'REGION');
  });

  it("a team member with the permission creates it too, its permissions read in the workspace's organization", async () => {
    const { server } = context;
    const { workspace, member } = await workspaceWithTeam(server, true);
    const path = `/api/v1/workspace/${workspace}/variable`;
    const { statements, answer } = await statementsOf(server, path, () => server.post(path, variable('REGION'), { token: member }));
    assert.equal(answer.status, 201, answer.text);
    // The workspace, the member's permissions in its organization, the INSERT (and on SQLite its change row apart).
    assert.equal(statements.length, context.kind === 'postgres' ? 3 : 4, statements.join('\n'));
  });

  it('a parent that is not there is answered 404 first: before a refusal, and before what the body holds', async () => {
    const { server } = context;
    const { workspace, member } = await workspaceWithTeam(server, false);
    const missing = randomUUID();
    const outsider = await server.token({ groups: [`outsider-${randomUUID()}`] });
    const cases = [
      { workspace: missing, body: variable('REGION'), token: undefined },
      { workspace: missing, body: resourceDocument('variable', { value: 'no key' }), token: undefined },
      { workspace: missing, body: variable('NOT-AN-ENV-NAME'), token: undefined },
      { workspace: missing, body: variable('REGION'), token: member },
      // Another organization's workspace is not there for this caller.
      { workspace, body: variable('REGION'), token: outsider },
      { workspace: 'not-an-id', body: variable('REGION'), token: undefined },
    ];
    for (const sent of cases) {
      const response = await server.post(`/api/v1/workspace/${sent.workspace}/variable`, sent.body, { token: sent.token });
      const [error] = assertError(response, 404);
      assert.match(error?.detail ?? '', new RegExp(`workspace ${sent.workspace}|${sent.workspace} for workspace`), response.text);
    }
    // Where the workspace is there: the member without the permission is refused, an invalid body is 422.
    assertError(await server.post(`/api/v1/workspace/${workspace}/variable`, variable('REGION'), { token: member }), 403);
    assertError(await server.post(`/api/v1/workspace/${workspace}/variable`, variable('NOT-AN-ENV-NAME')), 422, '/data/attributes/key');
  });

  it("a page of a workspace's variables is one statement; an empty page asks whether the workspace is there", async () => {
    const { server } = context;
    const { workspace } = await workspaceWithTeam(server, true);
    const path = `/api/v1/workspace/${workspace}/variable`;
    // A page small enough to hold its rows' worst case: a larger one is measured in the database first.
    const list = () => server.get(`${path}?page[size]=20`);
    const empty = await statementsOf(server, path, list);
    assert.equal(empty.answer.status, 200, empty.answer.text);
    assert.deepEqual(empty.answer.body.data, []);
    assert.equal(empty.statements.length, 2, empty.statements.join('\n'));
    for (const key of ['A', 'B', 'C']) await createRecord(server, path, 'variable', { key, value: 'v', category: 'ENV' });
    const page = await statementsOf(server, path, list);
    assert.deepEqual(
      page.answer.body.data.map((v: { attributes: { key: string } }) => v.attributes.key),
      ['A', 'B', 'C'],
    );
    assert.equal(page.statements.length, 1, page.statements.join('\n'));
  });

  it("a list under a workspace that is not there, or not the caller's, is 404, before a bad filter", async () => {
    const { server } = context;
    const { workspace } = await workspaceWithTeam(server, true);
    await createRecord(server, `/api/v1/workspace/${workspace}/variable`, 'variable', { key: 'A', value: 'v', category: 'ENV' });
    const missing = randomUUID();
    const outsider = await server.token({ groups: [`outsider-${randomUUID()}`] });
    for (const [id, query, token] of [
      [missing, '', undefined],
      [missing, '?filter=key=bad=x', undefined],
      [workspace, '', outsider],
      [workspace, '?filter=key==A', outsider],
    ] as const) {
      const response = await server.get(`/api/v1/workspace/${id}/variable${query}`, { token });
      const [error] = assertError(response, 404);
      assert.match(error?.detail ?? '', new RegExp(id), response.text);
    }
    assertError(await server.get(`/api/v1/workspace/${workspace}/variable?filter=key=bad=x`), 400);
  });
});

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
 * A create is one statement when nothing before its INSERT needs the parent: the INSERT inserts the
 * row only under a parent the caller can see. Whatever else asks for the parent (a team member's
 * permissions, a refusal) looks it up first, so a missing parent is still the first thing answered.
 * Counted in the server's statement log (STRATUM_LOG_LEVEL=trace).
 */
describeEachStore('the statements of a create', { env: { STRATUM_LOG_LEVEL: 'trace' } }, (context) => {
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
    assert.equal(statements.length, 1, statements.join('\n'));
    const { sql } = JSON.parse(statements[0] ?? '{}') as { sql?: string };
    assert.match(sql ?? '', /^insert into "variable" .* where exists \(select 1 as "one" from "workspace"/);
    const read = await server.get(`${path}/${answer.body.data.id as string}`);
    assert.equal(read.body.data.attributes.key, 'REGION');
  });

  it("a team member with the permission creates it too, its permissions read in the workspace's organization", async () => {
    const { server } = context;
    const { workspace, member } = await workspaceWithTeam(server, true);
    const path = `/api/v1/workspace/${workspace}/variable`;
    const { statements, answer } = await statementsOf(server, path, () => server.post(path, variable('REGION'), { token: member }));
    assert.equal(answer.status, 201, answer.text);
    // The workspace, the member's permissions in its organization, the INSERT.
    assert.equal(statements.length, 3, statements.join('\n'));
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
});

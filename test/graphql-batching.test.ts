import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  createOrganization,
  createRecord,
  createVcs,
  createWorkspace,
  describeEachStore,
  statementsOf,
  type Response,
  type TestServer,
} from './harness.ts';
import { graphql } from './graphql-helpers.ts';

/**
 * Nested relationships load in batches: every record of a level that asks for a relationship waits
 * for one query (with the measure of its size, two), so the statements a query makes depend on its
 * shape, never on the number of records. Counted in the server's statement log (STRATUM_LOG_LEVEL
 * trace logs each statement once it has run).
 */
describeEachStore('GraphQL batching', { env: { STRATUM_LOG_LEVEL: 'trace' } }, (context) => {
  const query = `{
    organization(filter: "name=in=(%NAMES%)") { edges { node {
      name
      workspace { edges { node {
        name
        organization { edges { node { name } } }
        vcs { edges { node { name } } }
        variable { edges { node { key } } }
      } } }
      vcs { edges { node { name } } }
    } } }
  }`;

  /** Organizations, each with workspaces linked to a VCS connection and holding variables. */
  async function populate(server: TestServer, prefix: string, organizations: number, workspaces: number): Promise<string[]> {
    const names: string[] = [];
    for (let o = 0; o < organizations; o++) {
      const name = `${prefix}-${o}`;
      names.push(name);
      const organization = await createOrganization(server, { name });
      const vcs = await createVcs(server, organization);
      for (let w = 0; w < workspaces; w++) {
        const workspace = await createWorkspace(server, organization, { name: `ws-${w}` });
        await server.patch(`/api/v1/workspace/${workspace}/relationships/vcs`, { data: { type: 'vcs', id: vcs } });
        await createRecord(server, `/api/v1/workspace/${workspace}/variable`, 'variable', { key: 'region', value: 'x', category: 'ENV' });
      }
    }
    return names;
  }

  /** The SQL statements one GraphQL request made, from the server's log. */
  async function statementsOfQuery(server: TestServer, text: string): Promise<{ statements: string[]; body: Response['body'] }> {
    const { statements, answer } = await statementsOf(server, '/graphql/api/v1', () => graphql(server, text));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.errors, undefined, answer.text);
    return { statements, body: answer.body };
  }

  it('a nested query makes the same statements for 2 organizations as for 8, one or two per relationship and level', async () => {
    const small = await populate(context.server, 'small', 2, 2);
    const large = await populate(context.server, 'large', 8, 5);
    const ask = (names: string[]) => statementsOfQuery(context.server, query.replace('%NAMES%', names.join(',')));
    const few = await ask(small);
    const many = await ask(large);
    assert.equal(many.body.data.organization.edges.length, 8);
    const workspaces = many.body.data.organization.edges.flatMap(
      (e: { node: { workspace: { edges: unknown[] } } }) => e.node.workspace.edges,
    );
    assert.equal(workspaces.length, 40);
    for (const edge of workspaces) {
      assert.equal(edge.node.vcs.edges.length, 1);
      assert.equal(edge.node.variable.edges.length, 1);
      assert.equal(edge.node.organization.edges.length, 1);
    }
    // Organizations (1), their workspaces (measured, then read: 2), each workspace's organization
    // and VCS connection (1 each), its variables (2), and each organization's VCS connections (2).
    assert.equal(few.statements.length, 9, few.statements.join('\n'));
    assert.equal(many.statements.length, few.statements.length, many.statements.join('\n'));
  });

  it('a per-record page (first) stays one query for every record of the level', async () => {
    const names = await populate(context.server, 'paged', 4, 3);
    const { statements, body } = await statementsOfQuery(
      context.server,
      `{ organization(filter: "name=in=(${names.join(',')})", sort: "name") { edges { node { workspace(first: 2, sort: "-name") { edges { node { name } } pageInfo { hasNextPage totalRecords } } } } } }`,
    );
    for (const edge of body.data.organization.edges) {
      assert.deepEqual(edge.node.workspace, {
        edges: [{ node: { name: 'ws-2' } }, { node: { name: 'ws-1' } }],
        pageInfo: { hasNextPage: true, totalRecords: 3 },
      });
    }
    // Organizations, then workspaces measured, read and counted.
    assert.equal(statements.length, 4, statements.join('\n'));
  });

  it('the statement log holds SQL text and never a bound value', async () => {
    await createOrganization(context.server, { name: 'value-that-must-not-be-logged' });
    const { statements } = await statementsOfQuery(
      context.server,
      '{ organization(filter: "name==value-that-must-not-be-logged") { edges { node { id } } } }',
    );
    assert.ok(statements.length > 0);
    for (const line of statements) assert.doesNotMatch(line, /value-that-must-not-be-logged/);
  });
});

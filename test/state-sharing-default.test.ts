/**
 * STRATUM_WORKSPACE_GLOBAL_REMOTE_STATE=false: a workspace created without `globalRemoteState`
 * keeps its state to its own runs, on every way a workspace is created (JSON:API, atomic operations,
 * GraphQL), until someone shares it; one that asks for global sharing still gets it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import { mintStateCredential } from '../src/auth/tokens.ts';
import { data, literal } from './graphql-helpers.ts';
import {
  assertError,
  createOrganization,
  createRecord,
  createTemplate,
  createWorkspace,
  describeEachStore,
  resourceDocument,
  writeFirstState,
} from './harness.ts';

const atomic = 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"';

describeEachStore(
  'new workspaces that keep their state to themselves',
  { env: { STRATUM_WORKSPACE_GLOBAL_REMOTE_STATE: 'false', STRATUM_EXECUTOR: 'off' } },
  (context) => {
    let organization: string;
    const workspacePath = (id: string) => `/api/v1/organization/${organization}/workspace/${id}`;
    const sharing = async (id: string) => (await context.server.get(workspacePath(id))).body.data.attributes.globalRemoteState;

    before(async () => {
      organization = await createOrganization(context.server);
    });

    it('creates a workspace without globalRemoteState as not shared, through JSON:API, atomic operations and GraphQL', async () => {
      assert.equal(await sharing(await createWorkspace(context.server, organization)), false);
      assert.equal(await sharing(await createWorkspace(context.server, organization, { globalRemoteState: null })), false);
      // Asked for, it is what was asked.
      assert.equal(await sharing(await createWorkspace(context.server, organization, { globalRemoteState: true })), true);

      const operations = await context.server.request('POST', '/api/v1/operations', {
        body: {
          'atomic:operations': [
            {
              op: 'add',
              href: `/organization/${organization}/workspace`,
              data: { type: 'workspace', attributes: { name: `ws-${randomUUID()}` } },
            },
          ],
        },
        headers: { 'content-type': atomic, accept: atomic },
      });
      assert.equal(operations.status, 200, operations.text);
      assert.equal(await sharing(operations.body['atomic:results'][0].data.id), false);

      const created = await data(
        context.server,
        `mutation { organization(ids: [${literal(organization)}]) { edges { node { workspace(op: UPSERT, data: {name: ${literal(`ws-${randomUUID()}`)}}) { edges { node { id globalRemoteState } } } } } } }`,
      );
      const node = created.organization.edges[0].node.workspace.edges[0].node;
      assert.equal(node.globalRemoteState, false);
      assert.equal(await sharing(node.id), false);
    });

    it("keeps a new workspace's state from another workspace's run until it is shared, by name or with all", async () => {
      const reader = await createWorkspace(context.server, organization);
      const template = await createTemplate(context.server, organization, {
        tcl: Buffer.from('flow:\n  - type: terraformPlan\n    step: 100\n').toString('base64'),
      });
      const job = await createRecord(
        context.server,
        `/api/v1/organization/${organization}/job`,
        'job',
        { templateReference: template },
        { relationships: { workspace: { data: { type: 'workspace', id: reader } } } },
      );
      const credential = await mintStateCredential(context.server.signer, {
        organizationId: organization,
        workspaceId: reader,
        jobReference: job,
      });
      const state = async (id: string) =>
        context.server.request('GET', `/tfstate/v1/organization/${organization}/workspace/${id}/state`, {
          token: null,
          headers: { authorization: `Basic ${Buffer.from(`stratum:${credential}`).toString('base64')}` },
        });

      const closed = await createWorkspace(context.server, organization);
      await writeFirstState(context.server, organization, closed);
      assertError(await state(closed), 403);

      const shared = await context.server.patch(
        workspacePath(closed),
        resourceDocument('workspace', { sharedIds: reader }, { id: closed }),
      );
      assert.equal(shared.status, 204, shared.text);
      assert.equal((await state(closed)).status, 200);

      const open = await createWorkspace(context.server, organization);
      await writeFirstState(context.server, organization, open);
      assertError(await state(open), 403);
      const opened = await context.server.patch(
        workspacePath(open),
        resourceDocument('workspace', { globalRemoteState: true }, { id: open }),
      );
      assert.equal(opened.status, 204, opened.text);
      assert.equal((await state(open)).status, 200);
      // Null asks for the default again: this server's, not the declared one.
      const reset = await context.server.patch(
        workspacePath(open),
        resourceDocument('workspace', { globalRemoteState: null }, { id: open }),
      );
      assert.equal(reset.status, 204, reset.text);
      assert.equal(await sharing(open), false);
      assertError(await state(open), 403);
    });
  },
);

/**
 * A workspace's `source` is what its runs check out: a source no run may read is refused when the
 * workspace is saved, in the words the run would fail with, on every transport.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, it } from 'node:test';
import { checkout } from '../src/git/index.ts';
import { graphql, literal, type GraphQLError } from './graphql-helpers.ts';
import { assertError, createOrganization, createWorkspace, describeEachStore, resourceDocument } from './harness.ts';

const atomic = 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"';

/** Sources Terrakube's clients send (its provider, the web UI's VCS and SSH forms, CLI-driven workspaces). */
const accepted = [
  'https://github.com/acme/network.git',
  'http://git.internal:3000/acme/network.git',
  'https://dev.azure.com/acme/platform/_git/network',
  'ssh://git@github.com/acme/network.git',
  'git@github.com:acme/network.git',
  'git@gitlab.com:acme/group/network.git',
  'empty',
  '',
];

/** Sources a run refuses, with the reason a run gives. */
const refused: [source: string, detail: string][] = [
  ['file:///etc', 'The source uses file, not https or ssh.'],
  ['file:///srv/git/network.git', 'The source uses file, not https or ssh.'],
  ['/srv/git/network.git', 'The source is not a git URL (https://host/path.git, ssh://git@host/path.git or git@host:path.git).'],
  ['ext::sh -c id', 'The source uses ext, not https or ssh.'],
  ['https://deploy:hunter2@github.com/acme/network.git', 'The source holds a password: link a VCS connection or an SSH key instead.'],
];

describeEachStore('workspace sources', (context) => {
  let organization: string;
  const workspaces = () => `/api/v1/organization/${organization}/workspace`;

  before(async () => {
    organization = await createOrganization(context.server);
  });

  it("refuses a source a run would refuse when the workspace is created or updated: 422 at source, in the run's words", async () => {
    for (const [source, detail] of refused) {
      const created = await context.server.post(workspaces(), resourceDocument('workspace', { name: `bad-${randomUUID()}`, source }));
      const [problem] = assertError(created, 422, '/data/attributes/source');
      assert.equal(problem?.detail, detail, source);
    }
    const id = await createWorkspace(context.server, organization, { source: 'https://github.com/acme/network.git' });
    const patched = await context.server.patch(`${workspaces()}/${id}`, resourceDocument('workspace', { source: 'file:///etc' }, { id }));
    assertError(patched, 422, '/data/attributes/source');
    const read = await context.server.get(`${workspaces()}/${id}`);
    assert.equal(read.body.data.attributes.source, 'https://github.com/acme/network.git');
  });

  it('keeps accepting the https, http and ssh sources Terrakube clients send, and "empty" for CLI-driven workspaces', async () => {
    for (const source of accepted) {
      const created = await context.server.post(workspaces(), resourceDocument('workspace', { name: `ok-${randomUUID()}`, source }));
      assert.equal(created.status, 201, `${source}: ${created.text}`);
      assert.equal(created.body.data.attributes.source, source);
    }
  });

  it('says what a run says: checking out the same source fails with the same message', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-source-'));
    try {
      const created = await context.server.post(
        workspaces(),
        resourceDocument('workspace', { name: `run-${randomUUID()}`, source: 'file:///etc' }),
      );
      const [problem] = assertError(created, 422, '/data/attributes/source');
      await assert.rejects(checkout({ url: 'file:///etc' }, 'main', path.join(folder, 'source')), { message: problem?.detail });
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('refuses it in atomic operations and GraphQL mutations too, writing nothing', async () => {
    const name = `batch-${randomUUID()}`;
    const batch = await context.server.request('POST', '/api/v1/operations', {
      body: {
        'atomic:operations': [
          {
            op: 'add',
            href: `/organization/${organization}/workspace`,
            data: { type: 'workspace', attributes: { name, source: 'file:///etc' } },
          },
        ],
      },
      headers: { 'content-type': atomic, accept: atomic },
    });
    assertError(batch, 422, '/atomic:operations/0/data/attributes/source');
    const mutation = await graphql(
      context.server,
      `mutation { organization(ids: [${literal(organization)}]) { edges { node { workspace(op: UPSERT, data: {name: ${literal(name)}, source: "file:///etc"}) { edges { node { id } } } } } } }`,
    );
    const errors = mutation.body.errors as GraphQLError[];
    assert.deepEqual(
      errors.map((error) => [error.message, error.extensions.status, error.extensions.field]),
      [['The source uses file, not https or ssh.', 422, 'source']],
    );
    assert.equal(await context.server.countRows('workspace', 'name', name), 0);
  });

  it('lets an update send back a source stored before the rule, and refuses a new bad one', async () => {
    const id = await createWorkspace(context.server, organization, { source: 'https://github.com/acme/network.git' });
    // Saved by an earlier version, which accepted it.
    assert.equal(await context.server.execute('update workspace set source = $1 where id = $2', ['file:///srv/network', id]), 1);
    const settings = await context.server.patch(
      `/api/v1/workspace/${id}`,
      resourceDocument('workspace', { source: 'file:///srv/network', description: 'saved as read' }, { id }),
    );
    assert.equal(settings.status, 204, settings.text);
    const changed = await context.server.patch(
      `/api/v1/workspace/${id}`,
      resourceDocument('workspace', { source: 'file:///srv/other' }, { id }),
    );
    assertError(changed, 422, '/data/attributes/source');
  });
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import { assertError, createOrganization, createVcs, createWorkspace, describeEachStore, resourceDocument } from './harness.ts';
import { errors, literal } from './graphql-helpers.ts';

const atomic = 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"';

/**
 * A relationship that names a record which is not there is a 404 at the relationship, as JSON:API
 * and Elide have it, on every way of writing one. A record of another organization is not there
 * either, from the organization of the record that would link it.
 */
describeEachStore('links to records that are not there', (context) => {
  let organization = '';
  let workspace = '';
  const missing = randomUUID();
  let elsewhere = '';
  const workspaces = () => `/api/v1/organization/${organization}/workspace`;
  const vcsLink = (id: string) => ({ vcs: { data: { type: 'vcs', id } } });
  const linkedVcs = async () => (await context.server.get(`/api/v1/workspace/${workspace}/relationships/vcs`)).body.data;

  before(async () => {
    organization = await createOrganization(context.server);
    workspace = await createWorkspace(context.server, organization);
    elsewhere = await createVcs(context.server, await createOrganization(context.server));
  });

  it('a create naming a missing record, or one of another organization, is 404 at the relationship and creates nothing', async () => {
    for (const id of [missing, elsewhere]) {
      const name = `ws-${randomUUID()}`;
      const response = await context.server.post(workspaces(), resourceDocument('workspace', { name }, { relationships: vcsLink(id) }));
      const [error] = assertError(response, 404, '/data/relationships/vcs/data');
      assert.match(error?.detail ?? '', new RegExp(`^Unknown identifier ${id} for vcs`));
      assert.equal(await context.server.countRows('workspace', 'name', name), 0);
    }
  });

  it('an update or a relationship PATCH naming one is 404 at the relationship and changes nothing', async () => {
    for (const id of [missing, elsewhere]) {
      const update = await context.server.patch(
        `${workspaces()}/${workspace}`,
        resourceDocument('workspace', { description: 'changed' }, { id: workspace, relationships: vcsLink(id) }),
      );
      assertError(update, 404, '/data/relationships/vcs/data');
      const linked = await context.server.request('PATCH', `/api/v1/workspace/${workspace}/relationships/vcs`, {
        body: { data: { type: 'vcs', id } },
      });
      assertError(linked, 404, '/data');
    }
    assert.equal((await context.server.get(`${workspaces()}/${workspace}`)).body.data.attributes.description, null);
    assert.equal(await linkedVcs(), null);
  });

  it('an atomic operation naming one is 404 pointing into it, and the batch stores nothing', async () => {
    const name = `atomic-${randomUUID()}`;
    const response = await context.server.request('POST', '/api/v1/operations', {
      headers: { 'content-type': atomic, accept: atomic },
      body: {
        'atomic:operations': [
          { op: 'add', href: `/organization/${organization}/workspace`, data: { type: 'workspace', attributes: { name } } },
          { op: 'update', href: `/workspace/${workspace}/relationships/vcs`, data: { type: 'vcs', id: elsewhere } },
        ],
      },
    });
    assertError(response, 404, '/atomic:operations/1/data');
    const added = await context.server.request('POST', '/api/v1/operations', {
      headers: { 'content-type': atomic, accept: atomic },
      body: {
        'atomic:operations': [
          {
            op: 'add',
            href: `/organization/${organization}/workspace`,
            data: { type: 'workspace', attributes: { name }, relationships: vcsLink(missing) },
          },
        ],
      },
    });
    assertError(added, 404, '/atomic:operations/0/data/relationships/vcs/data');
    assert.equal(await context.server.countRows('workspace', 'name', name), 0);
  });

  it('a GraphQL mutation naming one answers the same 404, naming the field, and writes nothing', async () => {
    for (const id of [missing, elsewhere]) {
      const name = `gql-${randomUUID()}`;
      const [created] = await errors(
        context.server,
        `mutation { workspace(op: UPSERT, data: {name: ${literal(name)}, organization: {id: ${literal(organization)}}, vcs: {id: ${literal(id)}}}) { edges { node { id } } } }`,
      );
      assert.deepEqual(created?.extensions, { code: 'not_found', status: 404, field: 'vcs' });
      assert.equal(await context.server.countRows('workspace', 'name', name), 0);
      const [linked] = await errors(
        context.server,
        `mutation { workspace(ids: [${literal(workspace)}]) { edges { node { vcs(op: UPSERT, data: {id: ${literal(id)}}) { edges { node { id } } } } } } }`,
      );
      assert.deepEqual(linked?.extensions, { code: 'not_found', status: 404, field: 'vcs' });
    }
    assert.equal(await linkedVcs(), null);
  });

  it('an attribute holding an id is a value, not a relationship: one naming no record of the organization stays 422', async () => {
    const response = await context.server.patch(
      `${workspaces()}/${workspace}`,
      resourceDocument('workspace', { defaultTemplate: missing }, { id: workspace }),
    );
    assertError(response, 422, '/data/attributes/defaultTemplate');
  });
});

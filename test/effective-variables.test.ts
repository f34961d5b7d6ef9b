/**
 * A workspace's effective variables, over JSON:API and GraphQL: what a run of it receives, by the
 * run's own resolution, where each variable came from and what it overrode; a sensitive value is
 * never in the answer; only a caller who sees the workspace reads them; and the read makes the same
 * few statements whether the workspace references one collection or fifty of a hundred items.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import {
  assertError,
  createCollection,
  createOrganization,
  createRecord,
  createWorkspace,
  describeEachStore,
  statementsOf,
} from './harness.ts';
import { data } from './graphql-helpers.ts';

const secret = 'effective-secret-value-do-not-show';

interface Source {
  layer: string;
  collectionId: string | null;
  collectionName: string | null;
  priority: number | null;
}
interface Effective {
  type: string;
  id: string;
  attributes: {
    key: string;
    category: string;
    hcl: boolean;
    sensitive: boolean;
    value: string | null;
    source: Source;
    overrides: Source[];
  };
}

describeEachStore('effective variables', { env: { STRATUM_LOG_LEVEL: 'trace' } }, (context) => {
  let organization: string;
  let workspace: string;
  let low: string;
  let high: string;
  const org = (rest: string) => `/api/v1/organization/${organization}${rest}`;
  const effectivePath = (id = workspace) => org(`/workspace/${id}/effectiveVariable`);
  const collection = async (name: string, priority: number, items: [string, string, string, boolean?][], of = workspace) => {
    const id = await createCollection(context.server, organization, { name, priority });
    for (const [key, value, category, sensitive] of items)
      await createRecord(context.server, org(`/collection/${id}/item`), 'item', { key, value, category, sensitive: sensitive === true });
    await createRecord(
      context.server,
      org(`/collection/${id}/reference`),
      'reference',
      {},
      { relationships: { workspace: { data: { type: 'workspace', id: of } } } },
    );
    return id;
  };

  before(async () => {
    organization = await createOrganization(context.server);
    workspace = await createWorkspace(context.server, organization, { name: 'effective' });
    for (const [key, value, category, sensitive] of [
      ['region', 'global-region', 'TERRAFORM', false],
      ['AWS_PROFILE', 'global-profile', 'ENV', false],
      ['api_token', secret, 'TERRAFORM', true],
    ] as const)
      await createRecord(context.server, org('/globalvar'), 'globalvar', { key, value, category, sensitive });
    low = await collection('low', 1, [
      ['region', 'low-region', 'TERRAFORM'],
      ['size', 'low-size', 'TERRAFORM'],
      ['zone', 'low-zone', 'TERRAFORM'],
    ]);
    high = await collection('high', 10, [
      ['zone', 'high-zone', 'TERRAFORM'],
      ['DB_PASSWORD', secret, 'ENV', true],
    ]);
    await createRecord(context.server, org(`/workspace/${workspace}/variable`), 'variable', {
      key: 'size',
      value: '"workspace-size"',
      category: 'TERRAFORM',
      hcl: true,
      sensitive: false,
    });
  });

  it('lists what a run receives: the workspace over global variables over collections, higher priority first, with what each overrode', async () => {
    const response = await context.server.get(effectivePath());
    assert.equal(response.status, 200, response.text);
    assert.match(String(response.headers.get('content-type')), /^application\/vnd\.api\+json/);
    assert.doesNotMatch(response.text, new RegExp(secret));
    const found = new Map((response.body.data as Effective[]).map((entry) => [entry.id, entry]));
    assert.deepEqual(
      [...found.keys()],
      ['ENV:AWS_PROFILE', 'ENV:DB_PASSWORD', 'TERRAFORM:api_token', 'TERRAFORM:region', 'TERRAFORM:size', 'TERRAFORM:zone'],
    );
    for (const entry of found.values()) assert.equal(entry.type, 'effective_variable');
    const none = { collectionId: null, collectionName: null, priority: null };
    const region = found.get('TERRAFORM:region')?.attributes;
    assert.deepEqual([region?.value, region?.source], ['global-region', { layer: 'global', ...none }]);
    assert.deepEqual(region?.overrides, [{ layer: 'collection', collectionId: low, collectionName: 'low', priority: 1 }]);
    const size = found.get('TERRAFORM:size')?.attributes;
    assert.deepEqual([size?.value, size?.hcl, size?.source.layer], ['"workspace-size"', true, 'workspace']);
    assert.deepEqual(size?.overrides, [{ layer: 'collection', collectionId: low, collectionName: 'low', priority: 1 }]);
    const zone = found.get('TERRAFORM:zone')?.attributes;
    assert.deepEqual(
      [zone?.value, zone?.source],
      ['high-zone', { layer: 'collection', collectionId: high, collectionName: 'high', priority: 10 }],
    );
    assert.deepEqual(zone?.overrides, [{ layer: 'collection', collectionId: low, collectionName: 'low', priority: 1 }]);
    for (const key of ['TERRAFORM:api_token', 'ENV:DB_PASSWORD']) {
      const sensitive = found.get(key)?.attributes;
      assert.deepEqual([sensitive?.sensitive, sensitive?.value], [true, null], key);
    }
  });

  it('answers the same through GraphQL, as a field of the workspace', async () => {
    const answer = (await data(
      context.server,
      `{ organization(ids: ["${organization}"]) { edges { node { workspace(ids: ["${workspace}"]) { edges { node { effectiveVariables { key category value sensitive source { layer collectionName priority } overrides { layer collectionName } } } } } } } } }`,
    )) as { organization: { edges: { node: { workspace: { edges: { node: { effectiveVariables: Record<string, unknown>[] } }[] } } }[] } };
    const list = answer.organization.edges[0]?.node.workspace.edges[0]?.node.effectiveVariables ?? [];
    assert.doesNotMatch(JSON.stringify(list), new RegExp(secret));
    assert.deepEqual(
      list.find((entry) => entry.key === 'zone'),
      {
        key: 'zone',
        category: 'TERRAFORM',
        value: 'high-zone',
        sensitive: false,
        source: { layer: 'collection', collectionName: 'high', priority: 10 },
        overrides: [{ layer: 'collection', collectionName: 'low' }],
      },
    );
    assert.deepEqual(
      list.find((entry) => entry.key === 'DB_PASSWORD'),
      {
        key: 'DB_PASSWORD',
        category: 'ENV',
        value: null,
        sensitive: true,
        source: { layer: 'collection', collectionName: 'high', priority: 10 },
        overrides: [],
      },
    );
  });

  it('answers 404 to a caller who does not see the workspace, for an unknown one, or under another organization, and 401 without a token', async () => {
    const stranger = await context.server.token({ groups: ['NOBODY'] });
    assertError(await context.server.get(effectivePath(), { token: stranger }), 404);
    assertError(await context.server.get(effectivePath('00000000-0000-4000-8000-000000000000')), 404);
    const other = await createOrganization(context.server);
    assertError(await context.server.get(`/api/v1/organization/${other}/workspace/${workspace}/effectiveVariable`), 404);
    assertError(await context.server.get(effectivePath(), { token: null }), 401);
  });

  it('reads a workspace of fifty collections of a hundred items in as many statements as one of a single collection', async () => {
    const small = await createWorkspace(context.server, organization, { name: 'one-collection' });
    await collection('single', 5, [['only', 'one', 'TERRAFORM']], small);
    const large = await createWorkspace(context.server, organization, { name: 'fifty-collections' });
    for (let c = 0; c < 50; c++) {
      const id = await createCollection(context.server, organization, { name: `bulk-${String(c).padStart(2, '0')}`, priority: c });
      const operations = Array.from({ length: 100 }, (_, i) => ({
        op: 'add',
        href: `/organization/${organization}/collection/${id}/item`,
        data: { type: 'item', attributes: { key: `key_${i}`, value: `value-${c}-${i}`, category: 'TERRAFORM' } },
      }));
      const atomic = 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"';
      const batch = await context.server.request('POST', '/api/v1/operations', {
        body: { 'atomic:operations': operations },
        headers: { 'content-type': atomic, accept: atomic },
      });
      assert.equal(batch.status, 200, batch.text);
      await createRecord(
        context.server,
        org(`/collection/${id}/reference`),
        'reference',
        {},
        { relationships: { workspace: { data: { type: 'workspace', id: large } } } },
      );
    }
    const one = await statementsOf(context.server, effectivePath(small), () => context.server.get(effectivePath(small)));
    const fifty = await statementsOf(context.server, effectivePath(large), () => context.server.get(effectivePath(large)));
    assert.equal(one.answer.status, 200, one.answer.text);
    assert.equal(fifty.answer.status, 200, fifty.answer.text);
    const variables = fifty.answer.body.data as Effective[];
    // 100 keys, each from the collection of the highest priority, over the 49 others.
    assert.equal(variables.filter((entry) => entry.attributes.key.startsWith('key_')).length, 100);
    const first = variables.find((entry) => entry.id === 'TERRAFORM:key_0')?.attributes;
    assert.deepEqual([first?.value, first?.source.collectionName, first?.overrides.length], ['value-49-0', 'bulk-49', 49]);
    assert.equal(fifty.statements.length, one.statements.length, fifty.statements.join('\n'));
  });
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import { data, graphql, nodes } from './graphql-helpers.ts';
import { assertError, createOrganization, createRecord, describeEachStore } from './harness.ts';

const base64 = (text: string) => Buffer.from(text).toString('base64');

/** An action as the Actions page sends it: the id twice, beside data and among the attributes. */
function actionDocument(id: string, attributes: Record<string, unknown> = {}) {
  return {
    data: {
      type: 'action',
      id,
      attributes: {
        id,
        name: 'Say hello',
        type: 'Workspace/Action',
        label: 'Hello',
        category: 'General',
        version: '1.0.0',
        description: 'A greeting',
        action: base64('({ context }) => <Button>Hello {context.workspace.attributes.name}</Button>'),
        displayCriteria: JSON.stringify([{ filter: 'true', settings: [{ key: 'greeting', value: 'hi' }] }]),
        active: true,
        ...attributes,
      },
    },
  };
}

describeEachStore('records of the whole service: actions and federated credentials', (context) => {
  /** A member of some organization's team, and a caller of no organization at all. */
  let member: string;
  let stranger: string;

  before(async () => {
    const organization = await createOrganization(context.server);
    const group = `team-${randomUUID()}`;
    await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: group, role: 'admin' });
    member = await context.server.token({ groups: [group] });
    stranger = await context.server.token({ groups: [`nobody-${randomUUID()}`] });
  });

  it('ships built-in actions that every caller reads, as every workspace page asks for them', async () => {
    for (const token of [context.server.adminToken, member, stranger]) {
      const all = await context.server.get('/api/v1/action', { token });
      assert.equal(all.status, 200, all.text);
      const ids = all.body.data.map((action: { id: string }) => action.id);
      for (const id of ['terrakube.open-documentation', 'terrakube.resource-details', 'stratum.open-repository'])
        assert.ok(ids.includes(id), id);
      // The header buttons of a workspace page, with the UI's own filter.
      const header = await context.server.get(`/api/v1/action?filter[action]=active==true;type=in=('Workspace/Action')`, { token });
      assert.equal(header.status, 200, header.text);
      assert.deepEqual(
        header.body.data.map((action: { id: string }) => action.id),
        ['stratum.open-repository'],
      );
    }
    // The web UI runs an action with the icons of its own list in scope, and no other: a name outside
    // it breaks the workspace page ("ReadOutlined is not defined").
    const uiIcons = new Set(['InfoCircleOutlined', 'LinkOutlined', 'CopyOutlined', 'ExportOutlined', 'CodeOutlined', 'TagOutlined']);
    for (const action of (await context.server.get('/api/v1/action')).body.data as { id: string; attributes: { action: string } }[]) {
      if (!action.id.startsWith('terrakube.') && !action.id.startsWith('stratum.')) continue;
      const icons =
        Buffer.from(action.attributes.action, 'base64')
          .toString()
          .match(/\b[A-Z]\w*Outlined\b/g) ?? [];
      for (const icon of icons) assert.ok(uiIcons.has(icon), `${action.id} names ${icon}, which the web UI does not give actions`);
    }
    const one = (await context.server.get('/api/v1/action/terrakube.open-documentation', { token: stranger })).body.data;
    assert.equal(one.attributes.type, 'Workspace/ResourceDrawer/Action');
    assert.match(Buffer.from(String(one.attributes.action), 'base64').toString(), /registry\.terraform\.io\/providers/);
    assert.deepEqual(JSON.parse(String(one.attributes.displayCriteria)), [{ filter: 'true' }]);
  });

  it('lets administrators add, edit and delete an action under the id they choose, as the Actions page does', async () => {
    const id = `acme.hello-${randomUUID().slice(0, 8)}`;
    const created = await context.server.post('/api/v1/action', actionDocument(id));
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.id, id);
    assert.equal(created.headers.get('location'), `/api/v1/action/${id}`);
    assert.equal(created.body.data.attributes.active, true);
    assert.equal('id' in created.body.data.attributes, false);

    const edited = await context.server.request('PATCH', `/api/v1/action/${id}`, {
      body: actionDocument(id, { label: 'Hi', active: false }),
    });
    assert.equal(edited.status, 204, edited.text);
    const read = await context.server.get(`/api/v1/action/${id}`, { token: member });
    assert.deepEqual([read.body.data.attributes.label, read.body.data.attributes.active], ['Hi', false]);

    assert.equal((await context.server.delete(`/api/v1/action/${id}`)).status, 204);
    assertError(await context.server.get(`/api/v1/action/${id}`), 404);
  });

  it('refuses action writes by anyone but administrators, and leaves the action as it was', async () => {
    const id = `acme.kept-${randomUUID().slice(0, 8)}`;
    assert.equal((await context.server.post('/api/v1/action', actionDocument(id))).status, 201);
    for (const token of [member, stranger]) {
      assertError(await context.server.post('/api/v1/action', actionDocument(`acme.other-${randomUUID().slice(0, 8)}`), { token }), 403);
      assertError(
        await context.server.request('PATCH', `/api/v1/action/${id}`, { token, body: actionDocument(id, { label: 'Taken' }) }),
        403,
      );
      assertError(await context.server.delete(`/api/v1/action/${id}`, { token }), 403);
    }
    assert.equal((await context.server.get(`/api/v1/action/${id}`)).body.data.attributes.label, 'Hello');
  });

  it('refuses an action without an id, with a malformed or disagreeing one, a taken one, or bad values', async () => {
    const fresh = () => `acme.bad-${randomUUID().slice(0, 8)}`;
    const { data: withoutId } = actionDocument('x');
    const { id: _dataId, ...bare } = withoutId;
    const { id: _attributeId, ...attributes } = bare.attributes;
    assertError(await context.server.post('/api/v1/action', { data: { ...bare, attributes } }), 422, '/data/attributes/id');
    assertError(await context.server.post('/api/v1/action', actionDocument('has space')), 422, '/data/attributes/id');
    assertError(await context.server.post('/api/v1/action', actionDocument(`-${fresh()}`)), 422, '/data/attributes/id');
    const disagreeing = actionDocument(fresh());
    disagreeing.data.attributes.id = fresh();
    assertError(await context.server.post('/api/v1/action', disagreeing), 409, '/data/attributes/id');
    assertError(await context.server.post('/api/v1/action', actionDocument('terrakube.open-documentation')), 409);
    assertError(
      await context.server.post('/api/v1/action', actionDocument(fresh(), { displayCriteria: '{"filter": "true"}' })),
      422,
      '/data/attributes/displayCriteria',
    );
    assertError(
      await context.server.post('/api/v1/action', actionDocument(fresh(), { displayCriteria: 'true' })),
      422,
      '/data/attributes/displayCriteria',
    );
    assertError(await context.server.post('/api/v1/action', actionDocument(fresh(), { active: 'yes' })), 422, '/data/attributes/active');
    assertError(await context.server.post('/api/v1/action', actionDocument(fresh(), { name: 7 })), 422, '/data/attributes/name');
    assertError(
      await context.server.post('/api/v1/action', actionDocument(fresh(), { organization: 'mine' })),
      400,
      '/data/attributes/organization',
    );
    const id = fresh();
    assert.equal((await context.server.post('/api/v1/action', actionDocument(id))).status, 201);
    const moved = actionDocument(id);
    moved.data.attributes.id = fresh();
    assertError(await context.server.request('PATCH', `/api/v1/action/${id}`, { body: moved }), 409, '/data/attributes/id');
    // Other records still take no client id.
    assertError(
      await context.server.post('/api/v1/organization', {
        data: { type: 'organization', id: randomUUID(), attributes: { name: fresh() } },
      }),
      403,
    );
  });

  it('creates an action under the id its author gives through GraphQL too, as Elide does, for administrators only', async () => {
    const id = `acme.graph-${randomUUID().slice(0, 8)}`;
    const fields = `name: "Graph", label: "Graph", category: "General", type: "Workspace/Action", version: "1.0.0", action: "e30="`;
    const mutation = `mutation { action(op: UPSERT, data: {id: "${id}", ${fields}}) { edges { node { id name active } } } }`;
    const refused = await graphql(context.server, mutation, { token: member });
    assert.equal(refused.body.errors?.[0]?.extensions?.status, 403, refused.text);
    assertError(await context.server.get(`/api/v1/action/${id}`), 404);
    const created = await data(context.server, mutation);
    assert.deepEqual(nodes(created.action), [{ id, name: 'Graph', active: false }]);
    const read = await data(context.server, `{ action(ids: ["${id}"]) { edges { node { id label } } } }`, { token: stranger });
    assert.deepEqual(nodes(read.action), [{ id, label: 'Graph' }]);
    assert.equal((await context.server.delete(`/api/v1/action/${id}`)).status, 204);
  });

  it('keeps federated credentials and their claims to administrators, as the Federated Credentials page edits them', async () => {
    const created = await context.server.post('/api/v1/federated', {
      data: {
        type: 'federated',
        attributes: { name: `github-${randomUUID()}`, issuerUrl: 'https://token.actions.githubusercontent.com', audience: 'stratum' },
      },
    });
    assert.equal(created.status, 201, created.text);
    const id = String(created.body.data.id);
    const claims = `/api/v1/federated/${id}/claims`;
    const claim = await context.server.post(claims, {
      data: { type: 'federated_claim', attributes: { claimKey: 'repository', claimValue: 'acme/infra' } },
    });
    assert.equal(claim.status, 201, claim.text);
    const claimId = String(claim.body.data.id);
    assert.deepEqual(claim.body.data.relationships.federated.data, { type: 'federated', id });
    const edited = await context.server.request('PATCH', `${claims}/${claimId}`, {
      body: { data: { type: 'federated_claim', id: claimId, attributes: { claimKey: 'repository', claimValue: 'acme/platform' } } },
    });
    assert.equal(edited.status, 204, edited.text);
    assert.deepEqual(
      (await context.server.get(claims)).body.data.map((c: { attributes: Record<string, unknown> }) => c.attributes.claimValue),
      ['acme/platform'],
    );
    const renamed = await context.server.request('PATCH', `/api/v1/federated/${id}`, {
      body: { data: { type: 'federated', id, attributes: { audience: 'sts' } } },
    });
    assert.equal(renamed.status, 204, renamed.text);

    const answer = await data(
      context.server,
      '{ federated { edges { node { id name audience claims { edges { node { claimKey claimValue } } } } } } }',
    );
    const found = nodes(answer.federated).find((node) => node.id === id);
    assert.equal(found?.audience, 'sts');
    assert.deepEqual(nodes(found.claims as never), [{ claimKey: 'repository', claimValue: 'acme/platform' }]);

    for (const token of [member, stranger]) {
      const list = await context.server.get('/api/v1/federated', { token });
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.body.data, []);
      assertError(await context.server.get(`/api/v1/federated/${id}`, { token }), 404);
      assertError(await context.server.get(claims, { token }), 404);
      assertError(await context.server.get(`${claims}/${claimId}`, { token }), 404);
      assertError(
        await context.server.post(
          '/api/v1/federated',
          { data: { type: 'federated', attributes: { name: 'mine', issuerUrl: 'https://issuer.example' } } },
          { token },
        ),
        403,
      );
      assertError(
        await context.server.post(claims, { data: { type: 'federated_claim', attributes: { claimKey: 'k', claimValue: 'v' } } }, { token }),
        404,
      );
      assertError(
        await context.server.request('PATCH', `/api/v1/federated/${id}`, {
          token,
          body: { data: { type: 'federated', id, attributes: { audience: 'x' } } },
        }),
        404,
      );
      assertError(await context.server.delete(`${claims}/${claimId}`, { token }), 404);
      assertError(await context.server.delete(`/api/v1/federated/${id}`, { token }), 404);
      assert.deepEqual(nodes((await data(context.server, '{ federated { edges { node { id } } } }', { token })).federated), []);
    }

    assert.equal((await context.server.delete(`/api/v1/federated/${id}`)).status, 204);
    assertError(await context.server.get(`${claims}/${claimId}`), 404);
  });

  it('refuses a federated credential with a bad issuer, a taken name, unknown or mistyped attributes', async () => {
    const name = `issuer-${randomUUID()}`;
    const post = (attributes: Record<string, unknown>) =>
      context.server.post('/api/v1/federated', { data: { type: 'federated', attributes } });
    assertError(await post({ name, issuerUrl: 'not a url' }), 422, '/data/attributes/issuerUrl');
    assertError(await post({ name, issuerUrl: 'file:///etc/passwd' }), 422, '/data/attributes/issuerUrl');
    assertError(await post({ name }), 422, '/data/attributes/issuerUrl');
    assertError(await post({ name, issuerUrl: 'https://issuer.example', audience: 3 }), 422, '/data/attributes/audience');
    assertError(await post({ name, issuerUrl: 'https://issuer.example', subject: 'x' }), 400, '/data/attributes/subject');
    assert.equal((await post({ name, issuerUrl: 'https://issuer.example' })).status, 201);
    assertError(await post({ name, issuerUrl: 'https://other.example' }), 409, '/data/attributes/name');
  });
});

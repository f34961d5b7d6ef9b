import assert from 'node:assert/strict';
import { it } from 'node:test';
import { assertError, describeEachStore } from './harness.ts';

/** An example document, as far as the checks read it. */
type Operation = { tags?: string[]; summary: string; operationId: string; requestBody: Content; responses: Record<string, Content> };
type Content = { content: Record<string, { example: unknown }> };

interface Doc {
  data: { type: string; attributes: Record<string, unknown> };
}

describeEachStore('API description', (context) => {
  it('serves an OpenAPI 3.1 document generated from the declarations, without a token', async () => {
    const response = await context.server.get('/api/openapi.json', { token: null });
    assert.equal(response.status, 200);
    assert.equal(response.body.openapi, '3.1.0');
    const paths = response.body.paths;
    assert.deepEqual(Object.keys(paths['/api/v1/organization']).sort(), ['get', 'parameters', 'post']);
    assert.deepEqual(Object.keys(paths['/api/v1/organization/{organizationId}/template/{templateId}']).sort(), [
      'delete',
      'get',
      'parameters',
      'patch',
    ]);
    const attributes = response.body.components.schemas.templateAttributes.properties;
    assert.deepEqual(attributes.description.type, ['string', 'null']);
    assert.equal(attributes.createdDate.readOnly, true);
    assert.deepEqual(response.body.components.schemas.organizationAttributes.properties.executionMode.enum, ['remote', 'local']);
  });

  it("serves the same document at /doc, where Terrakube's web UI reads it for its API docs page, with its token or none", async () => {
    const description = await context.server.get('/api/openapi.json', { token: null });
    for (const token of [null, context.server.adminToken]) {
      const response = await context.server.get('/doc', { token });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.deepEqual(response.body, description.body);
    }
  });

  it('describes every path of the interface, including the second mounts and the linked-record paths', async () => {
    const { paths, components } = (await context.server.get('/api/openapi.json', { token: null })).body;
    const methods = (path: string) =>
      Object.keys(paths[path] ?? {})
        .filter((k) => k !== 'parameters')
        .sort();
    assert.deepEqual(methods('/api/v1/organization/{organizationId}/collection/{collectionId}/item'), ['get', 'post']);
    assert.deepEqual(methods('/api/v1/workspace/{workspaceId}/variable'), ['get', 'post']);
    assert.deepEqual(methods('/api/v1/organization/{organizationId}/workspace/{workspaceId}/variable/{variableId}'), [
      'delete',
      'get',
      'patch',
    ]);
    assert.deepEqual(methods('/api/v1/workspace/{workspaceId}/vcs/{vcsId}'), ['delete', 'get', 'patch']);
    assert.deepEqual(methods('/api/v1/reference/{referenceId}'), ['delete', 'get', 'patch']);
    assert.deepEqual(methods('/api/v1/reference/{referenceId}/collection'), ['get']);
    assert.deepEqual(methods('/api/v1/organization/{organizationId}/workspace/{workspaceId}/relationships/{relationship}'), [
      'delete',
      'get',
      'patch',
      'post',
    ]);
    assert.deepEqual(methods('/api/v1/organization/{organizationId}/team/{teamId}'), ['delete', 'get', 'patch']);
    // The token endpoints decisions.md adds, described by the schemas that validate them.
    assert.deepEqual(methods('/access-token/v1/teams'), ['get', 'post']);
    assert.deepEqual(methods('/access-token/v1/teams/{tokenId}'), ['delete']);
    assert.deepEqual(methods('/access-token/v1/teams/current-teams'), ['get']);
    assert.deepEqual(methods('/access-token/v1/teams/permissions/organization/{organizationId}/workspace/{workspaceId}'), ['get']);
    assert.deepEqual(methods('/pat/v1'), ['get', 'post']);
    assert.deepEqual(methods('/pat/v1/{tokenId}'), ['delete']);
    assert.deepEqual(methods('/admin/v1/tokens'), ['get']);
    assert.deepEqual(methods('/admin/v1/tokens/{tokenId}'), ['delete']);
    // A credential is write-only in requests and null in every answer; a value that is a secret
    // only while sensitive is nullable, and null whenever sensitive is true.
    assert.equal(components.schemas.vcsInputAttributes.properties.clientSecret.writeOnly, true);
    assert.equal(components.schemas.vcsAttributes.properties.clientSecret.type, 'null');
    assert.equal(components.schemas.vcsAttributes.properties.name.writeOnly, undefined);
    const variable = components.schemas.variableAttributes;
    assert.deepEqual(variable.properties.value.type, ['string', 'null']);
    assert.equal(variable.properties.value.writeOnly, undefined);
    assert.deepEqual(variable.allOf, [
      { if: { required: ['sensitive'], properties: { sensitive: { const: true } } }, then: { properties: { value: { type: 'null' } } } },
    ]);
    const ids = Object.values(paths as Record<string, Record<string, { operationId?: string }>>).flatMap((item) =>
      Object.values(item).flatMap((operation) => (typeof operation.operationId === 'string' ? [operation.operationId] : [])),
    );
    assert.equal(new Set(ids).size, ids.length, 'operation ids repeat');
  });

  it('says null where an answer can hold null, and gives no default of null to a type without it', async () => {
    const { paths, components } = (await context.server.get('/api/openapi.json', { token: null })).body;
    const { schemas } = components;
    assert.deepEqual(schemas.workspaceAttributes.properties.lastJobDate.type, ['string', 'null']);
    assert.equal(schemas.sshAttributes.properties.privateKey.type, 'null');
    assert.equal(schemas.sshInputAttributes.properties.privateKey.type, 'string');
    assert.deepEqual(schemas.teamAttributes.properties.role.type, ['string', 'null']);
    assert.ok(schemas.teamAttributes.properties.role.enum.includes(null));
    const nullDefaults: string[] = [];
    const walk = (value: unknown, at: string): void => {
      if (typeof value !== 'object' || value === null) return;
      const schema = value as { default?: unknown; type?: unknown };
      if ('default' in schema && schema.default === null && !([] as unknown[]).concat(schema.type).includes('null')) nullDefaults.push(at);
      for (const [key, member] of Object.entries(value)) walk(member, `${at}/${key}`);
    };
    walk({ paths, components }, '');
    assert.deepEqual(nullDefaults, []);
    // The linkage a relationship endpoint answers, and a related read that may find nothing linked.
    const relationships = paths['/api/v1/organization/{organizationId}/workspace/{workspaceId}/relationships/{relationship}'];
    assert.equal(
      relationships.get.responses['200'].content['application/vnd.api+json'].schema.$ref,
      '#/components/schemas/RelationshipDocument',
    );
    assert.ok(relationships.parameters.find((p: { name: string }) => p.name === 'relationship').schema.enum.includes('vcs'));
    const related = paths['/api/v1/workspace/{workspaceId}/vcs'].get.responses['200'].content['application/vnd.api+json'];
    assert.deepEqual(related.schema.properties.data.oneOf[1], { type: 'null' });
  });

  it('lists 406 and 415 for every JSON:API operation, reads too, as each answers them', async () => {
    const { paths } = (await context.server.get('/api/openapi.json', { token: null })).body as {
      paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
    };
    const missing: string[] = [];
    for (const [route, operations] of Object.entries(paths)) {
      if (!route.startsWith('/api/v1/') || route === '/api/v1/operations') continue;
      for (const [method, operation] of Object.entries(operations)) {
        if (operation.responses === undefined) continue;
        for (const status of ['406', '415']) if (!(status in operation.responses)) missing.push(`${method} ${route} ${status}`);
      }
    }
    assert.deepEqual(missing, []);
    // What the document says, the server does on a read.
    const organizations = '/api/v1/organization';
    assertError(await context.server.get(organizations, { headers: { accept: 'application/vnd.api+json; foo=bar' } }), 406);
    assertError(await context.server.get(organizations, { headers: { 'content-type': 'application/vnd.api+json; foo=bar' } }), 415);
  });

  it('gives the token endpoints examples that succeed as they stand', async () => {
    const { paths } = (await context.server.get('/api/openapi.json', { token: null })).body;
    for (const path of ['/access-token/v1/teams', '/pat/v1']) {
      const example = paths[path].post.requestBody.content['application/json'].example;
      assert.equal(example.id, undefined);
      const response = await context.server.post(path, example, { headers: { 'content-type': 'application/json' } });
      assert.equal(response.status, 201, response.text);
    }
  });

  it('describes what a create requires, attributes and relationships, apart from what an update may send', async () => {
    const { paths, components } = (await context.server.get('/api/openapi.json', { token: null })).body;
    const created = (path: string) =>
      paths[path].post.requestBody.content['application/vnd.api+json'].schema.$ref.replace('#/components/schemas/', '');
    const reference = components.schemas[created('/api/v1/organization/{organizationId}/collection/{collectionId}/reference')];
    assert.deepEqual(reference.properties.data.properties.relationships.required, ['workspace']);
    assert.deepEqual(reference.properties.data.required, ['type', 'relationships']);
    const template = components.schemas[created('/api/v1/organization/{organizationId}/template')];
    assert.deepEqual(template.properties.data.properties.attributes.required, ['name', 'tcl']);
    const updated = paths['/api/v1/reference/{referenceId}'].patch.requestBody.content['application/vnd.api+json'].schema.$ref.replace(
      '#/components/schemas/',
      '',
    );
    assert.equal(components.schemas[updated].properties.data.properties.relationships.required, undefined);
  });

  it('describes the token endpoints with the schemas the server validates them by', async () => {
    const { paths } = (await context.server.get('/api/openapi.json', { token: null })).body;
    const teamBody = paths['/access-token/v1/teams'].post.requestBody.content['application/json'].schema;
    assert.deepEqual(teamBody.required, ['description', 'group']);
    assert.equal(teamBody.additionalProperties, false);
    const personalBody = paths['/pat/v1'].post.requestBody.content['application/json'].schema;
    assert.deepEqual(personalBody.required, ['description']);
    assert.equal(personalBody.properties.group, undefined);
    // What the description forbids, the server refuses: a field it does not list, and a negative lifetime.
    const post = (body: unknown) =>
      context.server.post('/access-token/v1/teams', body, { headers: { 'content-type': 'application/json' } });
    assertError(await post({ description: 'd', group: 'g', expires: 'never' }), 400, '/expires');
    assert.equal(teamBody.properties.days.minimum, 0);
    assertError(await post({ description: 'd', group: 'g', days: -1 }), 400, '/days');
    // The administrators' list describes its query parameter and every member of a token it answers.
    const listAll = paths['/admin/v1/tokens'].get;
    assert.deepEqual(
      listAll.parameters.map((p: { name: string; in: string }) => `${p.in} ${p.name}`),
      ['query includeInactive'],
    );
    assert.equal(listAll.responses['200'].content['application/json'].schema.items.required.length, 11);
    assertError(await context.server.get('/admin/v1/tokens?includeInactive=maybe'), 400);
    // The permission flags answered are the capabilities the team declaration grants, and managePermission.
    const flags =
      paths['/access-token/v1/teams/permissions/organization/{organizationId}'].get.responses['200'].content['application/json'].schema;
    assert.ok(Object.keys(flags.properties).includes('manageWorkspace') && Object.keys(flags.properties).includes('managePermission'));
  });

  it('serves the docs page from installed assets, without a token and without a CDN', async () => {
    const page = await context.server.get('/api/docs/', { token: null });
    assert.equal(page.status, 200);
    assert.match(page.text, /<title>Stratum API<\/title>/);
    assert.doesNotMatch(page.text, /<script[^>]+src="https?:/);
    const script = await context.server.get('/api/docs/static/swagger-ui-bundle.js', { token: null });
    assert.equal(script.status, 200);
  });

  it('groups every operation under a tag, reads well, and gives every resource an example request and answer', async () => {
    const document = (await context.server.get('/api/openapi.json', { token: null })).body;
    assert.equal(document.info.title, 'Stratum API');
    assert.match(document.info.description, /npx stratum token --subject you@example\.com --groups STRATUM_ADMIN/);
    const tags = new Set((document.tags as { name: string }[]).map((t) => t.name));
    const examples = new Map<string, { request: unknown; answer: unknown }>();
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, operation] of Object.entries(item)) {
        if (method === 'parameters') continue;
        const tag = operation.tags?.[0] ?? '';
        assert.equal(operation.tags?.length, 1, `${method} ${path} has no tag`);
        assert.ok(tags.has(tag), `${method} ${path}: tag ${tag} is not declared`);
        assert.doesNotMatch(operation.summary, /\ba [aeiou]/i, `${method} ${path}: "${operation.summary}"`);
        if (operation.operationId.startsWith('create_') && path.startsWith('/api/v1')) {
          examples.set(tag, {
            request: operation.requestBody.content['application/vnd.api+json']?.example,
            answer: operation.responses['201']?.content['application/vnd.api+json']?.example,
          });
        }
      }
    }
    for (const type of ['organization', 'template', 'collection', 'item', 'reference', 'workspace', 'variable', 'vcs', 'team']) {
      const example = examples.get(type);
      assert.equal((example?.request as Doc | undefined)?.data.type, type, `no example request for ${type}`);
      assert.equal((example?.answer as Doc | undefined)?.data.type, type, `no example answer for ${type}`);
    }
    assert.equal(document.paths['/api/v1/organization'].post.summary, 'Create an organization');
    // The example is a request the API takes as it stands (with a name of its own).
    const request = structuredClone(examples.get('organization')?.request) as Doc;
    request.data.attributes.name = `example-${context.kind}-${Date.now()}`;
    assert.equal((await context.server.post('/api/v1/organization', request)).status, 201);
    // A secret is null in an example answer, as in a real one.
    assert.equal((examples.get('vcs')?.answer as Doc).data.attributes.clientSecret, null);
  });
});

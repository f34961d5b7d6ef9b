import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeKinds, TestServer } from './harness.ts';

for (const kind of storeKinds) {
  describe(`API description (${kind})`, () => {
    let server: TestServer;
    before(async () => {
      server = await TestServer.start(kind);
    });
    after(async () => {
      await server.stop();
    });

    it('serves an OpenAPI 3.1 document generated from the declarations, without a token', async () => {
      const response = await server.get('/api/openapi.json', { token: null });
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

    it('describes every path of the interface, including the second mounts and the linked-record paths', async () => {
      const { paths, components } = (await server.get('/api/openapi.json', { token: null })).body;
      const methods = (path: string) => Object.keys(paths[path] ?? {}).filter((k) => k !== 'parameters').sort();
      assert.deepEqual(methods('/api/v1/organization/{organizationId}/collection/{collectionId}/item'), ['get', 'post']);
      assert.deepEqual(methods('/api/v1/workspace/{workspaceId}/variable'), ['get', 'post']);
      assert.deepEqual(methods('/api/v1/organization/{organizationId}/workspace/{workspaceId}/variable/{variableId}'), ['delete', 'get', 'patch']);
      assert.deepEqual(methods('/api/v1/workspace/{workspaceId}/vcs/{vcsId}'), ['delete', 'get', 'patch']);
      assert.deepEqual(methods('/api/v1/reference/{referenceId}'), ['delete', 'get', 'patch']);
      assert.deepEqual(methods('/api/v1/reference/{referenceId}/collection'), ['get']);
      assert.deepEqual(methods('/api/v1/organization/{organizationId}/workspace/{workspaceId}/relationships/{relationship}'), ['get', 'patch']);
      assert.deepEqual(methods('/api/v1/organization/{organizationId}/team/{teamId}'), ['delete', 'get', 'patch']);
      // The token endpoints decisions.md adds, described by hand beside the generated paths.
      assert.deepEqual(methods('/access-token/v1/teams'), ['get', 'post']);
      assert.deepEqual(methods('/access-token/v1/teams/{tokenId}'), ['delete']);
      assert.deepEqual(methods('/access-token/v1/teams/current-teams'), ['get']);
      assert.deepEqual(methods('/access-token/v1/teams/permissions/organization/{organizationId}/workspace/{workspaceId}'), ['get']);
      assert.deepEqual(methods('/pat/v1'), ['get', 'post']);
      assert.deepEqual(methods('/pat/v1/{tokenId}'), ['delete']);
      // Secrets are marked write-only, so generated clients never expect to read them.
      assert.equal(components.schemas.variableAttributes.properties.value.writeOnly, true);
      assert.equal(components.schemas.vcsAttributes.properties.clientSecret.writeOnly, true);
      assert.equal(components.schemas.vcsAttributes.properties.name.writeOnly, undefined);
      const ids = Object.values(paths as Record<string, Record<string, { operationId?: string }>>).flatMap((item) =>
        Object.values(item).flatMap((operation) => (typeof operation.operationId === 'string' ? [operation.operationId] : [])),
      );
      assert.equal(new Set(ids).size, ids.length, 'operation ids repeat');
    });

    it('serves the docs page from installed assets, without a token and without a CDN', async () => {
      const page = await server.get('/api/docs/', { token: null });
      assert.equal(page.status, 200);
      assert.match(page.text, /<title>Swagger UI<\/title>/);
      assert.doesNotMatch(page.text, /<script[^>]+src="https?:/);
      const script = await server.get('/api/docs/static/swagger-ui-bundle.js', { token: null });
      assert.equal(script.status, 200);
    });
  });
}

import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createOrganization, describeEachStore, type Response } from './harness.ts';
import { graphql, graphqlPath } from './graphql-helpers.ts';

const json = 'application/json; charset=utf-8';
const graphqlResponse = 'application/graphql-response+json; charset=utf-8';

/** A GET of the GraphQL endpoint with the parameters of GraphQL over HTTP, form-urlencoded in the query. */
const getQuery = (params: Record<string, string>) => `${graphqlPath}?${new URLSearchParams(params).toString()}`;

/** A GraphQL-shaped answer (`{errors}` and maybe `data`, never JSON:API's `status` and `title`) of the given status and type. */
function assertGraphQLShaped(response: Response, status: number, type = json) {
  assert.equal(response.status, status, response.text);
  assert.equal(response.headers.get('content-type'), type);
  assert.match(response.headers.get('vary') ?? '', /\bAccept\b/i);
  for (const key of Object.keys(response.body)) assert.ok(['data', 'errors'].includes(key), key);
  for (const error of response.body.errors ?? []) {
    assert.equal(typeof error.message, 'string');
    assert.deepEqual(
      Object.keys(error).filter((key) => ['status', 'title', 'detail'].includes(key)),
      [],
    );
  }
  return response.body;
}

describeEachStore('GraphQL over HTTP', (context) => {
  let acme = '';
  before(async () => {
    acme = await createOrganization(context.server, { name: 'acme-http' });
  });

  it('a GET with the query in the URL runs it, with variables and an operation name, as a POST would', async () => {
    const query = 'query One($id: String) { organization(ids: [$id]) { edges { node { id name } } } } query Other { __typename }';
    const variables = JSON.stringify({ id: acme });
    const got = assertGraphQLShaped(await context.server.get(getQuery({ query, variables, operationName: 'One' })), 200);
    assert.deepEqual(got, { data: { organization: { edges: [{ node: { id: acme, name: 'acme-http' } }] } } });
    const posted = await graphql(context.server, query, { variables: { id: acme }, operationName: 'One' });
    assert.deepEqual(got, posted.body);
    // Empty optional parameters are as good as none.
    const plain = await context.server.get(getQuery({ query: '{ __typename }', variables: '', operationName: '' }));
    assert.deepEqual(assertGraphQLShaped(plain, 200), { data: { __typename: 'Query' } });
  });

  it('a GET never runs a mutation: 405 with Allow: POST and a GraphQL error, and nothing is written', async () => {
    const query = 'mutation { organization(op: UPSERT, data: {name: "by-get"}) { edges { node { id } } } }';
    const response = await context.server.get(getQuery({ query }));
    const body = assertGraphQLShaped(response, 405);
    assert.equal(response.headers.get('allow'), 'POST');
    assert.equal(body.data, undefined);
    assert.deepEqual(body.errors[0].extensions, { code: 'method_not_allowed', status: 405 });
    assert.equal(await context.server.countRows('organization', 'name', 'by-get'), 0);
    // The operation named is the one judged: a query beside a mutation runs.
    const both = `query Read { __typename } ${query.replace('mutation', 'mutation Write')}`;
    assertGraphQLShaped(await context.server.get(getQuery({ query: both, operationName: 'Read' })), 200);
    assertGraphQLShaped(await context.server.get(getQuery({ query: both, operationName: 'Write' })), 405);
    assert.equal(await context.server.countRows('organization', 'name', 'by-get'), 0);
  });

  it('a GET that is no GraphQL request is 400, and one without a token 401, both with GraphQL errors', async () => {
    for (const path of [
      graphqlPath,
      getQuery({ query: '' }),
      getQuery({ query: '{ __typename }', variables: '{"id":' }),
      getQuery({ query: '{ __typename }', variables: '[1]' }),
      `${getQuery({ query: '{ __typename }' })}&query=${encodeURIComponent('{ __typename }')}`,
    ]) {
      const body = assertGraphQLShaped(await context.server.get(path), 400);
      assert.equal(body.errors[0].extensions.status, 400, path);
    }
    const anonymous = await context.server.get(getQuery({ query: '{ __typename }' }), { token: null });
    assertGraphQLShaped(anonymous, 401);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer/);
  });

  it('answers application/graphql-response+json when Accept prefers it, with the status of a request error', async () => {
    const preferring = { accept: 'application/graphql-response+json, application/json;q=0.9' };
    const ok = await context.server.get(getQuery({ query: '{ __typename }' }), { headers: preferring });
    assert.deepEqual(assertGraphQLShaped(ok, 200, graphqlResponse), { data: { __typename: 'Query' } });
    // A document that does not parse or validate has no data: its status says so with this type.
    const invalid = await graphql(context.server, '{ nonsense }', {});
    assertGraphQLShaped(invalid, 200);
    const invalidPreferring = await context.server.request('POST', graphqlPath, {
      raw: JSON.stringify({ query: '{ nonsense }' }),
      headers: { 'content-type': 'application/json', ...preferring },
    });
    assert.equal(assertGraphQLShaped(invalidPreferring, 400, graphqlResponse).data, undefined);
    // A failed mutation has data (null), and keeps 200.
    const failed = await context.server.request('POST', graphqlPath, {
      raw: JSON.stringify({ query: 'mutation { organization(op: UPSERT, data: {name: "acme-http"}) { edges { node { id } } } }' }),
      headers: { 'content-type': 'application/json', ...preferring },
    });
    assert.equal(assertGraphQLShaped(failed, 200, graphqlResponse).data, null);
    const refused = await context.server.get(getQuery({ query: 'mutation { __typename }' }), { headers: preferring });
    assertGraphQLShaped(refused, 405, graphqlResponse);
  });

  it('answers application/json to the web UI, to no Accept, to any type, and where Accept prefers it', async () => {
    for (const accept of [
      undefined,
      'application/json, text/plain, */*',
      '*/*',
      'application/json',
      'application/graphql-response+json;q=0.5, application/json',
      'text/html',
    ]) {
      const headers: Record<string, string> = accept === undefined ? {} : { accept };
      const got = await context.server.get(getQuery({ query: '{ __typename }' }), { headers });
      assertGraphQLShaped(got, 200);
      const posted = await context.server.request('POST', graphqlPath, {
        raw: JSON.stringify({ query: '{ __typename }' }),
        headers: { 'content-type': 'application/json', ...headers },
      });
      assertGraphQLShaped(posted, 200);
    }
  });
});

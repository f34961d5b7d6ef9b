import assert from 'node:assert/strict';
import type { TestServer } from './harness.ts';

export const graphqlPath = '/graphql/api/v1';

export interface GraphQLError {
  message: string;
  path?: (string | number)[];
  extensions: { code: string; status: number; field?: string; argument?: string };
}

/** POSTs a GraphQL request as the web UI does (a JSON body), as the caller of `token` (the administrator by default). */
export async function graphql(
  server: TestServer,
  query: string,
  options: { token?: string | null; variables?: Record<string, unknown>; operationName?: string } = {},
) {
  const body: Record<string, unknown> = { query };
  if (options.variables !== undefined) body.variables = options.variables;
  if (options.operationName !== undefined) body.operationName = options.operationName;
  return server.request('POST', graphqlPath, {
    raw: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
    ...(options.token === undefined ? {} : { token: options.token }),
  });
}

/** The data of a GraphQL answer that must hold no error. */
export async function data(server: TestServer, query: string, options: Parameters<typeof graphql>[2] = {}) {
  const response = await graphql(server, query, options);
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.errors, undefined, response.text);
  return response.body.data;
}

/** The errors of a GraphQL answer, which must have some; checks the shape every error has. */
export async function errors(server: TestServer, query: string, options: Parameters<typeof graphql>[2] = {}): Promise<GraphQLError[]> {
  const response = await graphql(server, query, options);
  assert.equal(response.status, 200, response.text);
  const found = response.body.errors as GraphQLError[];
  assert.ok(Array.isArray(found) && found.length > 0, response.text);
  for (const error of found) {
    assert.equal(typeof error.message, 'string');
    assert.equal(typeof error.extensions.code, 'string');
    assert.equal(typeof error.extensions.status, 'number');
  }
  return found;
}

/** The nodes of a connection. */
export const nodes = (connection: { edges: { node: Record<string, unknown> }[] }) => connection.edges.map((edge) => edge.node);

/** A string as a GraphQL string literal. */
export const literal = (value: string) => JSON.stringify(value);

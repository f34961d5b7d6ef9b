import { tokenRequestOf, type TokenRequestBody } from '../../auth/api-tokens.js';
import { trackedKinds, type TrackedKind } from '../../auth/tokens.js';
import type { Engine } from '../../engine/index.js';
import { idParameter } from '../../jsonapi/routes.js';
import { requireCaller } from '../plugins/authentication.js';
import { sessionOf } from './request-session.js';
import type { DescribedRoute, JsonSchema } from './described-route.js';

/** The placeholder id of a team token in the description's examples. */
export const exampleTokenId = '0192f3a0-8c4e-7d10-9a6b-7e0000000001';

const requiredText = (max: number, description: string): JsonSchema => ({
  type: 'string',
  maxLength: max,
  // Some text that is not only spaces, and no control character: NUL cannot be stored on
  // PostgreSQL, and the others are terminal commands where the console lists tokens.
  pattern: '^(?=[^\\u0000-\\u001f\\u007f-\\u009f]*$)[\\s\\S]*\\S',
  description: `${description}; one line of text, without control characters`,
});
const lifetime: JsonSchema = {
  // The web UI sends numbers as strings; the provider sends integers.
  type: ['integer', 'string', 'null'],
  minimum: 0,
  pattern: '^\\s*\\d*\\s*$',
  description: 'a whole number of zero or more, as a number or a numeric string; days, hours and minutes all zero: the token never expires',
};
// The Terraform provider sends these empty.
const assignedByServer: JsonSchema = {
  type: ['string', 'null'],
  maxLength: 0,
  description: 'assigned by the server: send it empty or leave it out',
};

/** Where each kind of token is served, how it is named, and the placeholder id of its examples. */
const endpoints: Record<TrackedKind, { base: string; noun: string; operation: string; forGroup: boolean; exampleId: string }> = {
  team: { base: '/access-token/v1/teams', noun: 'team API token', operation: 'team_token', forGroup: true, exampleId: exampleTokenId },
  personal: {
    base: '/pat/v1',
    noun: 'personal access token',
    operation: 'personal_token',
    forGroup: false,
    exampleId: '0192f3a0-8c4e-7d10-9a6b-7e0000000002',
  },
};

/** A request that succeeds as it stands (an administrator may name any group), and its answer. */
function tokenExamples(forGroup: boolean, id: string): { body: unknown; answer: unknown } {
  const body = {
    description: forGroup ? 'CI pipeline' : 'laptop',
    ...(forGroup ? { group: 'platform-engineers' } : {}),
    days: 30,
    hours: 0,
    minutes: 0,
  };
  const answer = {
    id,
    token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZWFtOnBsYXRmb3JtLWVuZ2luZWVycyJ9.c2lnbmF0dXJl',
    ...body,
    createdBy: 'admin@example.com',
    createdDate: '2025-01-15T09:30:00.000Z',
    expiresAt: '2025-02-14T09:30:00.000Z',
    deleted: false,
  };
  return { body, answer };
}

const tokenRequest = (forGroup: boolean): JsonSchema => ({
  type: 'object',
  required: forGroup ? ['description', 'group'] : ['description'],
  additionalProperties: false,
  properties: {
    description: requiredText(512, 'what the token is for'),
    ...(forGroup ? { group: requiredText(128, 'the team (directory group) the token speaks for; the caller must belong to it') } : {}),
    days: lifetime,
    hours: lifetime,
    minutes: lifetime,
    id: assignedByServer,
    token: assignedByServer,
  },
});
const tokenView: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid', description: 'Also the JWT jti.' },
    description: { type: 'string' },
    group: { type: 'string' },
    days: { type: 'integer' },
    hours: { type: 'integer' },
    minutes: { type: 'integer' },
    createdBy: { type: 'string' },
    createdDate: { type: 'string', format: 'date-time' },
    expiresAt: { type: ['string', 'null'], format: 'date-time' },
    deleted: { type: 'boolean' },
  },
};
const issuedToken: JsonSchema = { ...tokenView, properties: { ...(tokenView.properties as JsonSchema), token: { type: 'string' } } };

/**
 * The token endpoints Terrakube clients call, in plain JSON as Terrakube's controllers speak it:
 * team tokens at /access-token/v1/teams (with the caller's groups and permissions beside them)
 * and personal tokens at /pat/v1.
 */
export function tokenRoutes(engine: Engine, permissionScopes: readonly string[]): DescribedRoute[] {
  const routes: DescribedRoute[] = [];
  for (const kind of trackedKinds) {
    const { base, noun, operation: id, forGroup, exampleId } = endpoints[kind];
    routes.push(
      {
        method: 'POST',
        url: base,
        operationId: `create_${id}`,
        summary: `Create a ${noun}; the token string is returned once`,
        body: tokenRequest(forGroup),
        examples: tokenExamples(forGroup, exampleId),
        success: { status: 201, description: 'The token and its record.', schema: issuedToken },
        errors: [400, 401, 403, 415],
        handler: async (request, reply) => {
          const issued = await sessionOf(engine, request, reply).issueToken(kind, tokenRequestOf(request.body as TokenRequestBody));
          return reply.code(201).send(issued);
        },
      },
      {
        method: 'GET',
        url: base,
        operationId: `list_${id}s`,
        summary: forGroup
          ? "The live team tokens of the caller's groups (every group for administrators)"
          : "The caller's live personal tokens",
        success: { status: 200, description: 'Tokens, without their strings.', schema: { type: 'array', items: tokenView } },
        errors: [401],
        handler: async (request, reply) => reply.send(await sessionOf(engine, request, reply).listTokens(kind)),
      },
      {
        method: 'DELETE',
        url: `${base}/:tokenId`,
        operationId: `revoke_${id}`,
        summary: `Revoke a ${noun}: refused at once here, within a second on every other server`,
        params: { tokenId: { type: 'string' } },
        examples: { params: { tokenId: exampleId } },
        success: { status: 202, description: 'Revoked.' },
        errors: [401, 404],
        handler: async (request, reply) => {
          await sessionOf(engine, request, reply).revokeToken(kind, (request.params as { tokenId: string }).tokenId);
          // Existing clients require 202 here.
          return reply.code(202).send();
        },
      },
    );
  }
  routes.push({
    method: 'GET',
    url: '/access-token/v1/teams/current-teams',
    operationId: 'current_teams',
    summary: "The caller's groups",
    success: {
      status: 200,
      description: 'The groups.',
      schema: { type: 'object', properties: { groups: { type: 'array', items: { type: 'string' } } } },
    },
    errors: [401],
    handler: async (request, reply) => reply.send({ groups: requireCaller(request).groups }),
  });
  return [...routes, ...permissionRoutes(engine, permissionScopes)];
}

/**
 * The caller's permission flags in a tenant it can see, or in a record of one of the given types
 * directly inside it; 404 otherwise.
 */
function permissionRoutes(engine: Engine, scopes: readonly string[]): DescribedRoute[] {
  const { registry } = engine;
  const tenant = registry.tenant;
  const flags: JsonSchema = {
    type: 'object',
    properties: Object.fromEntries(engine.permissionNames().map((n) => [n, { type: 'boolean' }])),
  };
  const tenantParameter = idParameter(tenant);
  const base = `/access-token/v1/teams/permissions/${tenant.type}/:${tenantParameter}`;
  const scoped = [undefined, ...scopes.map((type) => registry.get(type))];
  return scoped.map((resource) => {
    if (resource !== undefined && registry.parentOf(resource) !== tenant)
      throw new Error(`permission scope ${resource.type} must live directly in the tenant`);
    const parameter = resource === undefined ? undefined : idParameter(resource);
    return {
      method: 'GET',
      url: resource === undefined ? base : `${base}/${resource.type}/:${String(parameter)}`,
      operationId: resource === undefined ? `${tenant.type}_permissions` : `${resource.type}_permissions`,
      summary: `The caller's permissions in one ${(resource ?? tenant).type}`,
      params: Object.fromEntries(
        [tenantParameter, ...(parameter === undefined ? [] : [parameter])].map((name) => [name, { type: 'string' }]),
      ),
      success: { status: 200, description: 'Permission flags.', schema: flags },
      errors: [401, 404],
      handler: async (request, reply) => {
        const params = request.params as Record<string, string>;
        const tenantId = params[tenantParameter] ?? '';
        const within = resource === undefined || parameter === undefined ? undefined : { resource, id: params[parameter] ?? '' };
        return reply.send(await sessionOf(engine, request, reply).permissions({ tenantId, ...(within === undefined ? {} : { within }) }));
      },
    };
  });
}

import type { FastifyInstance, FastifyReply } from 'fastify';
import { parseTokenRequest, type ApiTokens } from '../auth/api-tokens.js';
import { capabilities, capabilitiesIn } from '../auth/policy.js';
import type { TrackedKind } from '../auth/tokens.js';
import type { Resources } from '../engine/declaration.js';
import { findVisible, type QueryScope } from '../engine/records.js';
import { notFound } from '../jsonapi/errors.js';
import type { Store } from '../store/database.js';
import { requireCaller } from './authenticate.js';
import { errors } from './openapi.js';

export interface TokenRouteDependencies {
  apiTokens: ApiTokens;
  store: Store;
  resources: Resources;
}

/** Team and personal tokens speak plain JSON, as Terrakube's controllers do, not JSON:API. */
const sendJson = (reply: FastifyReply, status: number, body?: unknown) =>
  body === undefined ? reply.code(status).send() : reply.code(status).type('application/json').send(JSON.stringify(body));

/**
 * The token endpoints Terrakube clients call: team tokens at /access-token/v1/teams (with the
 * caller's groups and permissions beside them) and personal tokens at /pat/v1.
 */
export function registerTokenRoutes(api: FastifyInstance, { apiTokens, store, resources }: TokenRouteDependencies): void {
  const collections: [string, TrackedKind][] = [
    ['/access-token/v1/teams', 'team'],
    ['/pat/v1', 'personal'],
  ];
  for (const [path, kind] of collections) {
    api.post(path, async (request, reply) => {
      const issued = await apiTokens.issue(requireCaller(request), kind, parseTokenRequest(request.body, kind));
      return sendJson(reply, 201, issued);
    });
    api.get(path, async (request, reply) => sendJson(reply, 200, await apiTokens.list(requireCaller(request), kind)));
    api.delete<{ Params: { tokenId: string } }>(`${path}/:tokenId`, async (request, reply) => {
      await apiTokens.revoke(requireCaller(request), kind, request.params.tokenId);
      // Existing clients require 202 here.
      return sendJson(reply, 202);
    });
  }

  api.get('/access-token/v1/teams/current-teams', (request, reply) => sendJson(reply, 200, { groups: requireCaller(request).groups }));

  const organization = resources.get('organization');
  const workspace = resources.get('workspace');
  if (organization === undefined || workspace === undefined) throw new Error('the permission endpoints need organizations and workspaces');
  // The caller's permission flags in an organization, or one of its workspaces, that it can see; 404 otherwise.
  const permissionPaths = ['/access-token/v1/teams/permissions/organization/:organizationId', '/access-token/v1/teams/permissions/organization/:organizationId/workspace/:workspaceId'];
  for (const path of permissionPaths) {
    api.get<{ Params: { organizationId: string; workspaceId?: string } }>(path, async (request, reply) => {
      const caller = requireCaller(request);
      const scope: QueryScope = { db: store.db, caller, resources, dialect: store.dialect };
      const { organizationId, workspaceId } = request.params;
      if ((await findVisible(scope, organization, organizationId)) === undefined) throw notFound('organization', organizationId);
      if (workspaceId !== undefined && (await findVisible(scope, workspace, workspaceId))?.organization_id !== organizationId) {
        throw notFound('workspace', workspaceId);
      }
      const held = await capabilitiesIn(store.db, caller, organizationId);
      const flags = Object.fromEntries(capabilities.map((capability) => [capability, held.has(capability)]));
      return sendJson(reply, 200, { ...flags, managePermission: caller.isAdministrator });
    });
  }
}

const tokenRequest = (team: boolean) => ({
  type: 'object',
  required: team ? ['description', 'group'] : ['description'],
  properties: {
    description: { type: 'string', maxLength: 512 },
    ...(team ? { group: { type: 'string', maxLength: 128, description: 'The team (directory group) the token speaks for; the caller must belong to it.' } } : {}),
    days: { type: ['integer', 'string'], minimum: 0, description: 'Integer or numeric string; days, hours and minutes all zero: the token never expires.' },
    hours: { type: ['integer', 'string'], minimum: 0 },
    minutes: { type: ['integer', 'string'], minimum: 0 },
  },
  additionalProperties: false,
});
const tokenView = {
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
const json = (schema: unknown) => ({ 'application/json': { schema } });
const idParameter = { name: 'tokenId', in: 'path', required: true, schema: { type: 'string' } };
const permissionFlags = {
  type: 'object',
  properties: Object.fromEntries([...capabilities, 'managePermission'].map((name) => [name, { type: 'boolean' }])),
};

/** The OpenAPI paths of the token endpoints, which speak plain JSON rather than JSON:API. */
export function tokenOpenApiPaths(): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [base, team] of [['/access-token/v1/teams', true], ['/pat/v1', false]] as const) {
    const noun = team ? 'team API token' : 'personal access token';
    const id = team ? 'team_token' : 'personal_token';
    paths[base] = {
      post: {
        operationId: `create_${id}`,
        summary: `Create a ${noun}; the token string is returned once`,
        requestBody: { required: true, content: json(tokenRequest(team)) },
        responses: { '201': { description: 'The token and its record.', content: json({ ...tokenView, properties: { ...tokenView.properties, token: { type: 'string' } } }) }, ...errors(400, 401, 403, 415) },
      },
      get: {
        operationId: `list_${id}s`,
        summary: team ? "The live team tokens of the caller's groups (every group for administrators)" : "The caller's live personal tokens",
        responses: { '200': { description: 'Tokens, without their strings.', content: json({ type: 'array', items: tokenView }) }, ...errors(401) },
      },
    };
    paths[`${base}/{tokenId}`] = {
      parameters: [idParameter],
      delete: {
        operationId: `revoke_${id}`,
        summary: `Revoke a ${noun}: refused at once here, within a second on every other server`,
        responses: { '202': { description: 'Revoked.' }, ...errors(401, 404) },
      },
    };
  }
  paths['/access-token/v1/teams/current-teams'] = {
    get: {
      operationId: 'current_teams',
      summary: "The caller's groups",
      responses: { '200': { description: 'The groups.', content: json({ type: 'object', properties: { groups: { type: 'array', items: { type: 'string' } } } }) }, ...errors(401) },
    },
  };
  const uuid = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string', format: 'uuid' } });
  paths['/access-token/v1/teams/permissions/organization/{organizationId}'] = {
    parameters: [uuid('organizationId')],
    get: {
      operationId: 'organization_permissions',
      summary: "The caller's permissions in an organization",
      responses: { '200': { description: 'Permission flags.', content: json(permissionFlags) }, ...errors(401, 404) },
    },
  };
  paths['/access-token/v1/teams/permissions/organization/{organizationId}/workspace/{workspaceId}'] = {
    parameters: [uuid('organizationId'), uuid('workspaceId')],
    get: {
      operationId: 'workspace_permissions',
      summary: "The caller's permissions in a workspace",
      responses: { '200': { description: 'Permission flags.', content: json(permissionFlags) }, ...errors(401, 404) },
    },
  };
  return paths;
}

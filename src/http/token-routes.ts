import type { FastifyInstance, FastifyReply } from 'fastify';
import { parseTokenRequest, type ApiTokens } from '../auth/api-tokens.js';
import { capabilities, capabilitiesIn } from '../auth/policy.js';
import type { TrackedKind } from '../auth/tokens.js';
import type { Resources } from '../engine/declaration.js';
import { findVisible, type QueryScope } from '../engine/records.js';
import { notFound } from '../jsonapi/errors.js';
import type { Store } from '../store/database.js';
import { requireCaller } from './authenticate.js';

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

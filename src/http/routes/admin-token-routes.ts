import { trackedKinds } from '../../auth/tokens.js';
import type { Engine } from '../../engine/index.js';
import { sessionOf } from './request-session.js';
import { exampleTokenId } from './token-routes.js';
import type { DescribedRoute, JsonSchema } from './described-route.js';

const base = '/admin/v1/tokens';

const timestamp = (description: string): JsonSchema => ({ type: ['string', 'null'], format: 'date-time', description });
const tokenRecord: JsonSchema = {
  type: 'object',
  required: ['id', 'kind', 'description', 'group', 'owner', 'parentId', 'createdBy', 'createdDate', 'expiresAt', 'lastUsedAt', 'revokedAt'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'Also the JWT jti.' },
    kind: { type: 'string', enum: [...trackedKinds] },
    description: { type: 'string' },
    group: { type: ['string', 'null'], description: 'the team a team token speaks for; null for a personal token' },
    owner: { type: 'string', description: 'the subject that created the token' },
    parentId: {
      type: ['string', 'null'],
      format: 'uuid',
      description: 'the API token it was created with, which it never outlives; null when created with another kind of token',
    },
    createdBy: { type: 'string' },
    createdDate: { type: 'string', format: 'date-time' },
    expiresAt: timestamp('null: it never expires'),
    lastUsedAt: timestamp('when it last authenticated a request, to the minute; null: never used'),
    revokedAt: timestamp('null: not revoked'),
  },
};

/**
 * Administration of every team and personal token, whoever created it: what the lists of
 * /access-token/v1/teams and /pat/v1 do not show their callers, such as another user's personal
 * tokens, and revocation of any of them with the tokens created from it.
 */
export function adminTokenRoutes(engine: Engine): DescribedRoute[] {
  return [
    {
      method: 'GET',
      url: base,
      operationId: 'list_all_tokens',
      summary: 'Every team and personal token of every owner, oldest first (administrators only)',
      query: {
        includeInactive: {
          type: 'string',
          enum: ['true', 'false'],
          description: 'true: revoked and expired tokens too; by default only the live ones',
        },
      },
      success: { status: 200, description: 'Tokens, without their strings.', schema: { type: 'array', items: tokenRecord } },
      errors: [400, 401, 403],
      handler: async (request, reply) => {
        const { includeInactive } = request.query as { includeInactive?: 'true' | 'false' };
        return reply.send(await sessionOf(engine, request, reply).listEveryToken(includeInactive === 'true'));
      },
    },
    {
      method: 'DELETE',
      url: `${base}/:tokenId`,
      operationId: 'revoke_any_token',
      summary: 'Revoke any team or personal token, with every token created from it (administrators only)',
      params: { tokenId: { type: 'string' } },
      examples: { params: { tokenId: exampleTokenId } },
      success: { status: 202, description: 'Revoked, or already revoked.' },
      errors: [401, 403, 404],
      handler: async (request, reply) => {
        await sessionOf(engine, request, reply).revokeAnyToken((request.params as { tokenId: string }).tokenId);
        // As the other token endpoints answer a revocation.
        return reply.code(202).send();
      },
    },
  ];
}

import type { Engine } from '../../engine/index.js';
import type { DerivedList } from '../../graphql/derived.js';
import { mediaType } from '../../jsonapi/document.js';
import { idParameter } from '../../jsonapi/routes.js';
import type { ResourceDeclaration } from '../../model/index.js';
import type { EffectiveVariablesReader } from '../../runs/index.js';
import { exampleIds } from '../description/examples.js';
import { jsonApiMediaTypes } from './media-types.js';
import type { DescribedRoute, JsonSchema } from './described-route.js';
import { sessionOf } from './request-session.js';

/** The type of an effective variable in the JSON:API document. */
export const effectiveVariableType = 'effective_variable';

const nullableText = { type: ['string', 'null'] };
const source: JsonSchema = {
  type: 'object',
  required: ['layer', 'collectionId', 'collectionName', 'priority'],
  additionalProperties: false,
  properties: {
    layer: { type: 'string', enum: ['workspace', 'global', 'collection'] },
    collectionId: nullableText,
    collectionName: nullableText,
    priority: { type: ['integer', 'null'] },
  },
};

const documentSchema: JsonSchema = {
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'id', 'attributes'],
        properties: {
          type: { type: 'string', enum: [effectiveVariableType] },
          id: { type: 'string' },
          attributes: {
            type: 'object',
            required: ['key', 'category', 'hcl', 'sensitive', 'value', 'source', 'overrides'],
            additionalProperties: false,
            properties: {
              key: { type: 'string' },
              category: { type: 'string', enum: ['TERRAFORM', 'ENV'] },
              hcl: { type: 'boolean' },
              sensitive: { type: 'boolean' },
              value: nullableText,
              source,
              overrides: { type: 'array', items: source },
            },
          },
        },
      },
    },
  },
};

/**
 * A workspace's effective variables (`GET .../workspace/{id}/effectiveVariable`): every variable
 * a run of it receives, by the resolution a run uses, where each came from and what it overrode;
 * a sensitive one's value is null. Read by whoever sees the workspace (404 otherwise); read-only.
 */
export function effectiveVariablesRoute(
  engine: Engine,
  records: { workspace: ResourceDeclaration },
  read: EffectiveVariablesReader,
): DescribedRoute {
  const { registry } = engine;
  const tenant = registry.tenant;
  const { workspace } = records;
  const tenantParameter = idParameter(tenant);
  const workspaceParameter = idParameter(workspace);
  const ids = exampleIds(registry);
  const idSchema = { type: 'string', maxLength: 64 };
  return {
    method: 'GET',
    url: `/api/v1/${tenant.type}/:${tenantParameter}/${workspace.type}/:${workspaceParameter}/effectiveVariable`,
    operationId: 'read_effective_variables',
    tag: workspace.type,
    summary: "A workspace's effective variables: what a run receives, where each came from, and what it overrode",
    params: { [tenantParameter]: idSchema, [workspaceParameter]: idSchema },
    examples: { params: { [tenantParameter]: ids.get(tenant.type) ?? '', [workspaceParameter]: ids.get(workspace.type) ?? '' } },
    success: { status: 200, description: 'The variables, by category then key.', schema: documentSchema, mediaType },
    errors: [401, 404, 406, 415],
    // A JSON:API document, so its media types are checked as every JSON:API route's are.
    preParsing: jsonApiMediaTypes('resource'),
    handler: async (request, reply) => {
      const params = request.params as Record<string, string>;
      const organizationId = params[tenantParameter] ?? '';
      const found = await sessionOf(engine, request, reply).find({
        resource: workspace,
        ancestors: [{ resource: tenant, id: organizationId }],
        id: params[workspaceParameter] ?? '',
      });
      const variables = await read({ organizationId, workspaceId: String(found.id) });
      const data = variables.map(({ key, category, ...rest }) => ({
        type: effectiveVariableType,
        id: `${category}:${key}`,
        attributes: { key, category, ...rest },
      }));
      return reply.header('content-type', mediaType).header('cache-control', 'no-store').send({ data });
    },
  };
}

/** The same read as a GraphQL field of each workspace node: `effectiveVariables { key category value source { layer } ... }`. */
export function effectiveVariablesField(on: string, read: EffectiveVariablesReader): DerivedList {
  const sourceShape = { layer: 'string', collectionId: 'string', collectionName: 'string', priority: 'integer' } as const;
  return {
    on,
    name: 'effectiveVariables',
    typeName: 'EffectiveVariable',
    description: 'Every variable a run of the workspace receives, where it came from and what it overrode; a sensitive value is null.',
    shape: {
      key: 'string',
      category: 'string',
      hcl: 'boolean',
      sensitive: 'boolean',
      value: 'string',
      source: { object: sourceShape },
      overrides: { list: sourceShape },
    },
    read: (record) => read({ organizationId: String(record.organization_id), workspaceId: String(record.id) }),
  };
}

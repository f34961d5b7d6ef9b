import type { Route } from '../../jsonapi/routes.js';
import type { Registry, ResourceDeclaration } from '../../model/index.js';
import type { DescribedRoute } from '../routes/described-route.js';
import { describeRoute, errorComponents, errorResponses } from './operations.js';
import { idSchema, resourceSchemas, sharedSchemas, type Schema } from './resource-schemas.js';

/** The OpenAPI 3.1 description of the API, generated from the resource declarations. */
export function openApiDocument(
  registry: Registry,
  routes: readonly Route[],
  version: string,
  /** Endpoints outside the resource declarations, described by the schemas they are validated with. */
  describedRoutes: readonly DescribedRoute[],
  /** Endpoints that describe themselves (atomic operations): their paths and the schemas those name. */
  described: { paths: Record<string, Schema>; schemas: Record<string, Schema> }[] = [],
): Record<string, unknown> {
  const schemas: Record<string, Schema> = sharedSchemas(registry);
  for (const resource of registry.all()) {
    const listed = routes.some((route) => route.kind === 'list' && route.mount.resource === resource && route.mount.single !== true);
    Object.assign(schemas, resourceSchemas(resource, listed));
  }
  for (const extra of described) Object.assign(schemas, extra.schemas);
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Set<string>();
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const item = (paths[path] ??= {
      parameters: [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => pathParameter(registry, route.mount.resource, name ?? '')),
    });
    const operation = describeRoute(route);
    // Operation ids must be unique; a resource mounted at several paths numbers its later ones.
    let id = operation.operationId;
    for (let n = 2; operationIds.has(id); n++) id = `${operation.operationId}_${n}`;
    operationIds.add(id);
    item[route.method.toLowerCase()] = { ...operation, operationId: id, tags: [route.mount.resource.type] };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Stratum',
      version,
      description: 'Infrastructure automation management service (JSON:API).',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/', description: 'The server that serves this document.' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas,
      responses: errorComponents(),
    },
    security: [{ bearer: [] }],
    paths: Object.assign(paths, describedPaths(describedRoutes), ...described.map((extra) => extra.paths)),
  };
}

/**
 * A path parameter: a record id, or the name of a relationship of the path's record (declared, or
 * a name Terrakube clients use that is not modeled yet).
 */
function pathParameter(registry: Registry, resource: ResourceDeclaration, name: string): Schema {
  if (name !== 'relationship') {
    const named = registry.get(name.replace(/Id$/, ''));
    return { name, in: 'path', required: true, schema: named === undefined ? { type: 'string', format: 'uuid' } : idSchema(named) };
  }
  const declared = Object.keys(resource.relationships);
  const unmodeled = registry.unmodeledRelationships().flatMap(([n]) => (declared.includes(n) ? [] : [n]));
  return {
    name,
    in: 'path',
    required: true,
    description: `A relationship of the ${resource.type}; ${unmodeled.join(', ')} are names Terrakube clients use that are not modeled yet: they read as empty and accept null.`,
    schema: { type: 'string', enum: [...declared, ...unmodeled] },
  };
}

/** The OpenAPI paths of routes that carry their own schemas: plain JSON bodies and answers. */
function describedPaths(routes: readonly DescribedRoute[]): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.url.replace(/:(\w+)/g, '{$1}');
    const item = (paths[path] ??= {});
    if (route.params !== undefined) {
      item.parameters = Object.entries(route.params).map(([name, schema]) => {
        const example = route.examples?.params?.[name];
        return { name, in: 'path', required: true, schema, ...(example === undefined ? {} : { example }) };
      });
    }
    const { success, examples } = route;
    const json = (schema: unknown, example: unknown, mediaType = 'application/json') => ({
      [mediaType]: { schema, ...(example === undefined ? {} : { example }) },
    });
    const query = Object.entries(route.query ?? {}).map(([name, schema]) => ({ name, in: 'query', required: false, schema }));
    item[route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.tag === undefined ? {} : { tags: [route.tag] }),
      ...(route.public === true ? { security: [] } : {}),
      ...(query.length === 0 ? {} : { parameters: query }),
      ...(route.body === undefined ? {} : { requestBody: { required: true, content: json(route.body, examples?.body) } }),
      responses: {
        [String(success.status)]: {
          description: success.description,
          ...(success.schema === undefined
            ? success.mediaType === undefined
              ? {}
              : { content: { [success.mediaType]: {} } }
            : { content: json(success.schema, examples?.answer, success.mediaType) }),
        },
        ...Object.fromEntries(
          route.errors.flatMap((error) =>
            Object.entries(typeof error === 'number' ? errorResponses([error]) : errorResponses([error.status], error.description)),
          ),
        ),
      },
    };
  }
  return paths;
}

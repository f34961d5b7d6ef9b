import type { Attribute, ResourceDeclaration, Resources } from '../engine/declaration.js';
import type { Route } from '../engine/routes.js';
import { defaultPageSize, maxPageSize } from '../jsonapi/query.js';

type Schema = Record<string, unknown>;

function attributeSchema(attribute: Attribute): Schema {
  const readOnly = attribute.readOnly ? { readOnly: true } : {};
  switch (attribute.kind) {
    case 'text':
      return {
        type: attribute.nullable ? ['string', 'null'] : 'string',
        maxLength: attribute.maxLength,
        default: attribute.default,
        ...readOnly,
        ...(attribute.secret === undefined
          ? {}
          : {
              writeOnly: true,
              description:
                'always' in attribute.secret
                  ? 'A secret: stored encrypted, always read back as null.'
                  : `A secret while ${attribute.secret.whileTrue} is true: stored encrypted and read back as null.`,
            }),
      };
    case 'enum':
      return { type: 'string', enum: attribute.values, default: attribute.default, ...readOnly };
    case 'boolean':
      return { type: 'boolean', default: attribute.default, ...readOnly };
    case 'integer':
      return { type: 'integer', minimum: attribute.min, maximum: attribute.max, default: attribute.default, ...readOnly };
    case 'timestamp':
      return { type: 'string', format: 'date-time', readOnly: true };
  }
}

function resourceSchemas(resource: ResourceDeclaration): Record<string, Schema> {
  const name = resource.type;
  const required = Object.entries(resource.attributes)
    .filter(([, a]) => (a.kind === 'text' || a.kind === 'enum') && a.required)
    .map(([n]) => n);
  const relationships = Object.fromEntries(
    Object.entries(resource.relationships).map(([relationshipName, r]) => {
      const linkage = { type: 'object', properties: { type: { const: r.type }, id: { type: 'string', format: 'uuid' } } };
      const data = r.kind === 'toOne' ? { oneOf: [linkage, { type: 'null' }] } : { type: 'array', items: linkage };
      return [relationshipName, { type: 'object', properties: { data } }];
    }),
  );
  return {
    [`${name}Attributes`]: {
      type: 'object',
      properties: Object.fromEntries(Object.entries(resource.attributes).map(([n, a]) => [n, attributeSchema(a)])),
    },
    [`${name}Resource`]: {
      type: 'object',
      required: ['type', 'id', 'attributes'],
      properties: {
        type: { const: name },
        id: { type: 'string', format: 'uuid' },
        attributes: { $ref: `#/components/schemas/${name}Attributes` },
        relationships: { type: 'object', properties: relationships },
      },
    },
    [`${name}Input`]: {
      type: 'object',
      required: ['data'],
      properties: {
        data: {
          type: 'object',
          required: ['type'],
          properties: {
            type: { const: name },
            id: { type: 'string', description: 'Omitted on create; equal to the path id on update.' },
            attributes: { allOf: [{ $ref: `#/components/schemas/${name}Attributes` }], description: `Required on create: ${required.join(', ')}.` },
            relationships: { type: 'object', properties: relationships },
          },
        },
      },
    },
    [`${name}Document`]: {
      type: 'object',
      properties: {
        data: { $ref: `#/components/schemas/${name}Resource` },
        included: { type: 'array', items: { type: 'object' } },
      },
    },
    [`${name}ListDocument`]: {
      type: 'object',
      properties: {
        data: { type: 'array', items: { $ref: `#/components/schemas/${name}Resource` } },
        included: { type: 'array', items: { type: 'object' } },
        meta: { type: 'object' },
        links: { type: 'object' },
      },
    },
  };
}

const listParameters = [
  ['page[number]', 'Page number, from 1; with page[size].'],
  ['page[size]', `Records per page; default ${defaultPageSize}, at most ${maxPageSize}.`],
  ['page[offset]', 'Records to skip; with page[limit].'],
  ['page[limit]', `Records to return; default ${defaultPageSize}, at most ${maxPageSize}.`],
  ['page[totals]', 'Adds totalPages and totalRecords to meta.page.'],
  ['filter', 'RSQL filter on the primary data; dotted paths follow to-one relationships.'],
  ['sort', 'Comma-separated attributes; a leading - sorts descending.'],
  ['include', 'Comma-separated relationship paths to include.'],
].map(([name, description]) => ({ name, in: 'query', required: false, description, schema: { type: 'string' } }));

const jsonApi = (schema: string) => ({ 'application/vnd.api+json': { schema: { $ref: `#/components/schemas/${schema}` } } });
/** Responses of the given error statuses, each a JSON:API error document. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { description: 'A JSON:API error document.', content: jsonApi('Errors') }]));

/** The OpenAPI 3.1 description of the API, generated from the resource declarations. */
export function openApiDocument(
  resources: Resources,
  routes: readonly Route[],
  version: string,
  /** Paths described by hand: endpoints outside the resource declarations. */
  otherPaths: Record<string, Record<string, unknown>> = {},
): Record<string, unknown> {
  const schemas: Record<string, Schema> = {
    Errors: {
      type: 'object',
      properties: {
        errors: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              status: { type: 'string' },
              code: { type: 'string' },
              title: { type: 'string' },
              detail: { type: 'string' },
              source: { type: 'object', properties: { pointer: { type: 'string' }, parameter: { type: 'string' } } },
            },
          },
        },
      },
    },
  };
  for (const resource of resources.values()) Object.assign(schemas, resourceSchemas(resource));
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Set<string>();
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const item = (paths[path] ??= {
      parameters: [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => ({
        name,
        in: 'path',
        required: true,
        schema: name === 'relationship' ? { type: 'string' } : { type: 'string', format: 'uuid' },
      })),
    });
    const operation = describeRoute(route);
    // Operation ids must be unique; a resource mounted at several paths numbers its later ones.
    let id = operation.operationId;
    for (let n = 2; operationIds.has(id); n++) id = `${operation.operationId}_${n}`;
    operationIds.add(id);
    item[route.method.toLowerCase()] = { ...operation, operationId: id };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Stratum', version, description: 'Infrastructure automation management service (JSON:API).' },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } }, schemas },
    security: [{ bearer: [] }],
    paths: { ...paths, ...otherPaths },
  };
}

/** The OpenAPI operation of one route. */
function describeRoute(route: Route): { operationId: string } & Record<string, unknown> {
  const type = route.endpoint.resource.type;
  const typed = { name: `filter[${type}]`, in: 'query', required: false, description: `RSQL filter on every ${type} list of the answer.`, schema: { type: 'string' } };
  const include = listParameters.filter((p) => p.name === 'include');
  switch (route.kind) {
    case 'list':
      return {
        operationId: `list_${type}`,
        summary: `List ${type} records`,
        parameters: [...listParameters, typed],
        responses: { '200': { description: 'A page of records.', content: jsonApi(`${type}ListDocument`) }, ...errors(400, 401, 404) },
      };
    case 'create':
      return {
        operationId: `create_${type}`,
        summary: `Create a ${type}`,
        requestBody: { required: true, content: jsonApi(`${type}Input`) },
        responses: { '201': { description: 'The created record.', content: jsonApi(`${type}Document`) }, ...errors(400, 401, 403, 404, 409, 413, 415, 422) },
      };
    case 'read':
      return {
        operationId: `read_${type}`,
        summary: `Read a ${type}`,
        parameters: include,
        responses: { '200': { description: 'The record.', content: jsonApi(`${type}Document`) }, '304': { description: 'Not modified.' }, ...errors(400, 401, 404) },
      };
    case 'update':
      return {
        operationId: `update_${type}`,
        summary: `Update a ${type}: only the attributes sent change`,
        requestBody: { required: true, content: jsonApi(`${type}Input`) },
        responses: { '204': { description: 'Updated.' }, ...errors(400, 401, 403, 404, 409, 412, 413, 415, 422) },
      };
    case 'delete':
      return {
        operationId: `delete_${type}`,
        summary: `Delete a ${type} and everything under it`,
        responses: { '204': { description: 'Deleted.' }, ...errors(401, 403, 404, 412) },
      };
    case 'readRelated': {
      const target = route.link?.relationship.type ?? type;
      return {
        operationId: `read_${type}_${route.link?.name ?? 'related'}`,
        summary: `Read the ${target} a ${type} links (data is null when it links none)`,
        parameters: include,
        responses: { '200': { description: 'The linked record.', content: jsonApi(`${target}Document`) }, ...errors(400, 401, 404) },
      };
    }
    case 'readRelationship':
      return {
        operationId: `read_${type}_relationship`,
        summary: `Read the linkage of one relationship of a ${type}`,
        responses: { '200': { description: 'Linkage: {type, id}, null, or an array of them.' }, ...errors(400, 401, 404) },
      };
    case 'updateRelationship':
      return {
        operationId: `update_${type}_relationship`,
        summary: `Link a to-one relationship of a ${type} to another record, or unlink it with {"data": null}`,
        requestBody: { required: true, content: { 'application/vnd.api+json': { schema: { type: 'object' } } } },
        responses: { '204': { description: 'Linked.' }, ...errors(400, 401, 403, 404, 409, 415, 422) },
      };
  }
}

import type { Attribute, ResourceDeclaration, Resources } from '../engine/declaration.js';
import { idParameter } from '../engine/handlers.js';
import { ancestorsOf, resourcePaths } from '../engine/routes.js';
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
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { description: 'A JSON:API error document.', content: jsonApi('Errors') }]));

/** The OpenAPI 3.1 description of the API, generated from the resource declarations. */
export function openApiDocument(resources: Resources, version: string): Record<string, unknown> {
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
  const paths: Record<string, unknown> = {};
  for (const resource of resources.values()) {
    Object.assign(schemas, resourceSchemas(resource));
    const { collection, record } = resourcePaths(resource, resources);
    const pathParameters = [...ancestorsOf(resource, resources), resource].map((r) => ({
      name: idParameter(r),
      in: 'path',
      required: true,
      schema: { type: 'string', format: 'uuid' },
    }));
    const toOpenApi = (path: string) => path.replace(/:(\w+)/g, '{$1}');
    const type = resource.type;
    const typed = {
      name: `filter[${type}]`,
      in: 'query',
      required: false,
      description: `RSQL filter on every ${type} list of the answer.`,
      schema: { type: 'string' },
    };
    paths[toOpenApi(collection)] = {
      parameters: pathParameters.slice(0, -1),
      get: {
        operationId: `list_${type}`,
        summary: `List ${type} records`,
        parameters: [...listParameters, typed],
        responses: { '200': { description: 'A page of records.', content: jsonApi(`${type}ListDocument`) }, ...errors(400, 401, 404) },
      },
      post: {
        operationId: `create_${type}`,
        summary: `Create a ${type}`,
        requestBody: { required: true, content: jsonApi(`${type}Input`) },
        responses: { '201': { description: 'The created record.', content: jsonApi(`${type}Document`) }, ...errors(400, 401, 403, 404, 409, 413, 415, 422) },
      },
    };
    paths[toOpenApi(record)] = {
      parameters: pathParameters,
      get: {
        operationId: `read_${type}`,
        summary: `Read a ${type}`,
        parameters: listParameters.filter((p) => p.name === 'include'),
        responses: { '200': { description: 'The record.', content: jsonApi(`${type}Document`) }, '304': { description: 'Not modified.' }, ...errors(400, 401, 404) },
      },
      patch: {
        operationId: `update_${type}`,
        summary: `Update a ${type}: only the attributes sent change`,
        requestBody: { required: true, content: jsonApi(`${type}Input`) },
        responses: { '204': { description: 'Updated.' }, ...errors(400, 401, 403, 404, 409, 412, 413, 415, 422) },
      },
      delete: {
        operationId: `delete_${type}`,
        summary: `Delete a ${type} and everything under it`,
        responses: { '204': { description: 'Deleted.' }, ...errors(401, 403, 404, 412) },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Stratum', version, description: 'Infrastructure automation management service (JSON:API).' },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } }, schemas },
    security: [{ bearer: [] }],
    paths,
  };
}

import { defaultPageSize, maxPageSize } from '../../engine/index.js';
import type { Route } from '../../jsonapi/routes.js';
import { isRequired, type Attribute, type Registry, type ResourceDeclaration } from '../../model/index.js';
import type { DescribedRoute } from '../routes/described-route.js';

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
  const requiredAttributes = Object.entries(resource.attributes).flatMap(([n, a]) => (isRequired(a) ? [n] : []));
  const requiredRelationships = Object.entries(resource.relationships).flatMap(([n, r]) => (r.kind === 'toOne' && r.required ? [n] : []));
  const relationships = Object.fromEntries(
    Object.entries(resource.relationships).map(([relationshipName, r]) => {
      const linkage = { type: 'object', properties: { type: { const: r.type }, id: { type: 'string', format: 'uuid' } } };
      const data = r.kind === 'toOne' ? { oneOf: [linkage, { type: 'null' }] } : { type: 'array', items: linkage };
      return [relationshipName, { type: 'object', properties: { data } }];
    }),
  );
  const naming = resource.clientIds; // ids their authors choose (actions), else UUIDs the server assigns
  const id = naming === undefined ? { type: 'string', format: 'uuid' } : { type: 'string', pattern: naming.pattern.source };
  const onCreate = naming === undefined ? 'Omitted on create' : `Required on create (${naming.description}), also among the attributes`;
  const inputId = { type: 'string', description: `${onCreate}; equal to the path id on update.` };
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
        id,
        attributes: { $ref: `#/components/schemas/${name}Attributes` },
        relationships: { type: 'object', properties: relationships },
      },
    },
    // A create must send the required attributes and relationships; an update sends only what changes.
    [`${name}CreateInput`]: inputSchema(name, relationships, inputId, {
      attributes: requiredAttributes,
      relationships: requiredRelationships,
    }),
    [`${name}Input`]: inputSchema(name, relationships, inputId, { attributes: [], relationships: [] }),
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

function inputSchema(name: string, relationships: Schema, id: Schema, required: { attributes: string[]; relationships: string[] }): Schema {
  const attributes = { $ref: `#/components/schemas/${name}Attributes` };
  const withRequired = (schema: Schema, names: string[]) => (names.length === 0 ? schema : { ...schema, required: names });
  return {
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'object',
        required: ['type'],
        properties: {
          type: { const: name },
          id,
          attributes: withRequired({ type: 'object', allOf: [attributes] }, required.attributes),
          relationships: withRequired({ type: 'object', properties: relationships }, required.relationships),
        },
        ...(required.relationships.length === 0 ? {} : { required: ['type', 'relationships'] }),
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

/** A noun with its indefinite article, so that summaries read "an organization". */
const a = (noun: string) => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

const jsonApi = (schema: string) => ({ 'application/vnd.api+json': { schema: { $ref: `#/components/schemas/${schema}` } } });
/** Responses of the given error statuses, each a JSON:API error document. */
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { description: 'A JSON:API error document.', content: jsonApi('Errors') }]));

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
  for (const resource of registry.all()) Object.assign(schemas, resourceSchemas(resource));
  for (const extra of described) Object.assign(schemas, extra.schemas);
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
    item[route.method.toLowerCase()] = { ...operation, operationId: id, tags: [route.mount.resource.type] };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Stratum', version, description: 'Infrastructure automation management service (JSON:API).' },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } }, schemas },
    security: [{ bearer: [] }],
    paths: Object.assign(paths, describedPaths(describedRoutes), ...described.map((extra) => extra.paths)),
  };
}

/** The OpenAPI operation of one route. */
function describeRoute(route: Route): { operationId: string } & Record<string, unknown> {
  const type = route.mount.resource.type;
  const typed = {
    name: `filter[${type}]`,
    in: 'query',
    required: false,
    description: `RSQL filter on every ${type} list of the answer.`,
    schema: { type: 'string' },
  };
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
        summary: `Create ${a(type)}`,
        requestBody: { required: true, content: jsonApi(`${type}CreateInput`) },
        responses: {
          '201': { description: 'The created record.', content: jsonApi(`${type}Document`) },
          ...errors(400, 401, 403, 404, 409, 413, 415, 422),
        },
      };
    case 'read':
      return {
        operationId: `read_${type}`,
        summary: `Read ${a(type)}`,
        parameters: include,
        responses: {
          '200': { description: 'The record.', content: jsonApi(`${type}Document`) },
          '304': { description: 'Not modified.' },
          ...errors(400, 401, 404),
        },
      };
    case 'update':
      return {
        operationId: `update_${type}`,
        summary: `Update ${a(type)}: only the attributes sent change`,
        requestBody: { required: true, content: jsonApi(`${type}Input`) },
        responses: { '204': { description: 'Updated.' }, ...errors(400, 401, 403, 404, 409, 412, 413, 415, 422) },
      };
    case 'delete':
      return {
        operationId: `delete_${type}`,
        summary: `Delete ${a(type)} and everything under it`,
        responses: { '204': { description: 'Deleted.' }, ...errors(401, 403, 404, 412) },
      };
    case 'readRelated': {
      const target = route.relationship.link.type;
      return {
        operationId: `read_${type}_${route.relationship.name}`,
        summary: `Read the ${target} ${a(type)} links (data is null when it links none)`,
        parameters: include,
        responses: { '200': { description: 'The linked record.', content: jsonApi(`${target}Document`) }, ...errors(400, 401, 404) },
      };
    }
    case 'readRelationship':
      return {
        operationId: `read_${type}_relationship`,
        summary: `Read the linkage of one relationship of ${a(type)}`,
        responses: { '200': { description: 'Linkage: {type, id}, null, or an array of them.' }, ...errors(400, 401, 404) },
      };
    case 'updateRelationship':
      return {
        operationId: `update_${type}_relationship`,
        summary: `Link a to-one relationship of ${a(type)} to another record, or unlink it with {"data": null}`,
        requestBody: { required: true, content: { 'application/vnd.api+json': { schema: { type: 'object' } } } },
        responses: { '204': { description: 'Linked.' }, ...errors(400, 401, 403, 404, 409, 415, 422) },
      };
  }
}

/** The OpenAPI paths of routes that carry their own schemas: plain JSON bodies and answers. */
function describedPaths(routes: readonly DescribedRoute[]): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  const json = (schema: unknown) => ({ 'application/json': { schema } });
  for (const route of routes) {
    const path = route.url.replace(/:(\w+)/g, '{$1}');
    const item = (paths[path] ??= {});
    if (route.params !== undefined) {
      item.parameters = Object.entries(route.params).map(([name, schema]) => ({ name, in: 'path', required: true, schema }));
    }
    const { success } = route;
    const query = Object.entries(route.query ?? {}).map(([name, schema]) => ({ name, in: 'query', required: false, schema }));
    item[route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.public === true ? { security: [] } : {}),
      ...(query.length === 0 ? {} : { parameters: query }),
      ...(route.body === undefined ? {} : { requestBody: { required: true, content: json(route.body) } }),
      responses: {
        [String(success.status)]: {
          description: success.description,
          ...(success.schema === undefined ? {} : { content: json(success.schema) }),
        },
        ...errors(...route.errors),
      },
    };
  }
  return paths;
}

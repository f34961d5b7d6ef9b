import { defaultPageSize, maxPageSize } from '../../engine/index.js';
import type { Route } from '../../jsonapi/routes.js';
import { mayBeUnlinked, schemaRef, type Schema } from './resource-schemas.js';

const listParameters = [
  ['page[number]', 'Page number, from 1; with page[size].'],
  ['page[size]', `Records per page; default ${defaultPageSize}, at most ${maxPageSize}.`],
  ['page[offset]', 'Records to skip; with page[limit].'],
  ['page[limit]', `Records to return; default ${defaultPageSize}, at most ${maxPageSize}.`],
  ['page[totals]', 'Adds totalPages and totalRecords to meta.page.'],
  ['filter', 'RSQL filter on the primary data; dotted paths follow to-one relationships.'],
  ['sort', 'Comma-separated attributes; a leading - sorts descending.'],
  ['include', 'Comma-separated relationship paths to include.'],
].map(([name = '', description]) => ({ name, in: 'query', required: false, description, schema: { type: 'string' } }));

const include = listParameters.filter((p) => p.name === 'include');

/** A noun with its indefinite article, so that summaries read "an organization". */
const a = (noun: string) => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

const jsonApi = (schema: Schema) => ({ 'application/vnd.api+json': { schema } });

/** What each error status means, and an example of its error document (the codes clients may match on). */
const errorStatuses: Record<number, { description: string; code: string; title: string; detail: string; source?: Schema }> = {
  400: {
    description: 'Malformed request: document, query parameter or filter.',
    code: 'invalid_query_parameter',
    title: 'Bad Request',
    detail: 'Unknown query parameter sorting.',
    source: { parameter: 'sorting' },
  },
  401: { description: 'No valid token.', code: 'unauthorized', title: 'Unauthorized', detail: 'A bearer token is required.' },
  403: { description: 'Allowed to see, not to do.', code: 'forbidden', title: 'Forbidden', detail: 'The caller may not do this.' },
  404: {
    description: 'No such record, or one the caller may not see.',
    code: 'not_found',
    title: 'Not Found',
    detail: 'Unknown identifier 0192f3a0-8c4e-7d10-9a6b-0000000000ff for <type>',
  },
  406: {
    description:
      'The Accept header allows no answer this endpoint gives (every JSON:API media type it lists has a parameter other than ext and profile, or an extension other than atomic).',
    code: 'not_acceptable',
    title: 'Not Acceptable',
    detail: 'The Accept header allows no answer with the atomic extension.',
  },
  409: {
    description: 'Conflict: another type or id than the path, or a name already taken.',
    code: 'conflict',
    title: 'Conflict',
    detail: 'The name is taken.',
    source: { pointer: '/data/attributes/name' },
  },
  412: {
    description: 'If-Match names another version of the record.',
    code: 'precondition_failed',
    title: 'Precondition Failed',
    detail: 'The record has changed since the version If-Match names.',
  },
  413: { description: 'Body over 1 MiB.', code: 'payload_too_large', title: 'Payload Too Large', detail: 'The body is over 1 MiB.' },
  415: {
    description:
      'Body neither application/vnd.api+json nor application/json, or the JSON:API media type with a parameter other than ext and profile or an extension Stratum does not have (on any method, reads too).',
    code: 'unsupported_media_type',
    title: 'Unsupported Media Type',
    detail: 'The body must be application/vnd.api+json or application/json.',
  },
  422: {
    description: 'Invalid values.',
    code: 'required',
    title: 'Unprocessable Entity',
    detail: 'name is required.',
    source: { pointer: '/data/attributes/name' },
  },
  502: {
    description: 'The destination refused the message, did not answer in time, or may not be called.',
    code: 'delivery_failed',
    title: 'Bad Gateway',
    detail: 'The notification was not delivered: hooks.example.com answered 500.',
  },
  503: {
    description: 'The database is unavailable, or the server is busy or stopping.',
    code: 'database_unavailable',
    title: 'Service Unavailable',
    detail: 'The database is unavailable; retry shortly.',
  },
};

/** An error response, with an example error document of its status. */
function errorResponse(status: number): Schema {
  const known = errorStatuses[status];
  if (known === undefined) throw new Error(`no description of the error status ${status}`);
  const { code, title, detail, source } = known;
  const example = { errors: [{ status: String(status), code, title, detail, ...(source === undefined ? {} : { source }) }] };
  return {
    description: known.description,
    content: { 'application/vnd.api+json': { schema: schemaRef('Errors'), example } },
  };
}

/** The error responses every operation names (`#/components/responses/Error404`), written once. */
export const errorComponents = (): Record<string, Schema> =>
  Object.fromEntries(Object.keys(errorStatuses).map((status) => [`Error${status}`, errorResponse(Number(status))]));

/**
 * Responses of the given error statuses, each a JSON:API error document: references to the shared
 * ones, with a description of their own where `description` says more than the status does.
 */
export const errorResponses = (statuses: readonly number[], description?: string) =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      { $ref: `#/components/responses/Error${status}`, ...(description === undefined ? {} : { description }) },
    ]),
  );

/** A JSON:API answer: a description and a document schema. */
const answer = (description: string, schema: Schema) => ({ description, content: jsonApi(schema) });
const noContent = (description: string) => ({ description });

/** The OpenAPI operation of one route. */
export function describeRoute(route: Route): { operationId: string } & Record<string, unknown> {
  const type = route.mount.resource.type;
  const typed = {
    name: `filter[${type}]`,
    in: 'query',
    required: false,
    description: `RSQL filter on every ${type} list of the answer.`,
    schema: { type: 'string' },
  };
  switch (route.kind) {
    case 'list':
      if (route.mount.single === true)
        return {
          operationId: `read_${route.mount.ancestors.at(-1)?.type ?? 'parent'}_${type}`,
          summary: `Read the ${type} its parent holds (at most one, linked as a to-one)`,
          parameters: include,
          responses: {
            '200': answer('The record, or data null when there is none.', {
              type: 'object',
              required: ['data'],
              properties: { data: { oneOf: [schemaRef(`${type}Resource`), { type: 'null' }] }, included: schemaRef('Included') },
            }),
            ...errorResponses([400, 401, 404, 406, 415, 503]),
          },
        };
      return {
        operationId: `list_${type}`,
        summary: `List ${type} records`,
        parameters: [...listParameters, typed],
        responses: {
          '200': answer('A page of records.', schemaRef(`${type}ListDocument`)),
          ...errorResponses([400, 401, 404, 406, 415, 503]),
        },
      };
    case 'create':
      return {
        operationId: `create_${type}`,
        summary: `Create ${a(type)}`,
        parameters: include,
        requestBody: { required: true, content: jsonApi(schemaRef(`${type}CreateInput`)) },
        responses: {
          '201': answer('The created record.', schemaRef(`${type}Document`)),
          ...errorResponses([400, 401, 403, 404, 406, 409, 413, 415, 422, 503]),
        },
      };
    case 'read':
      return {
        operationId: `read_${type}`,
        summary: `Read ${a(type)}`,
        parameters: include,
        responses: {
          '200': answer('The record.', schemaRef(`${type}Document`)),
          '304': noContent('Not modified: If-None-Match names this version.'),
          ...errorResponses([400, 401, 404, 406, 415, 503]),
        },
      };
    case 'update':
      return {
        operationId: `update_${type}`,
        summary: `Update ${a(type)}: only the attributes sent change`,
        requestBody: { required: true, content: jsonApi(schemaRef(`${type}Input`)) },
        responses: { '204': noContent('Updated.'), ...errorResponses([400, 401, 403, 404, 406, 409, 412, 413, 415, 422, 503]) },
      };
    case 'delete':
      return {
        operationId: `delete_${type}`,
        summary: `Delete ${a(type)} and everything under it`,
        responses: { '204': noContent('Deleted.'), ...errorResponses([400, 401, 403, 404, 406, 412, 415, 503]) },
      };
    case 'readRelated': {
      const { name, link } = route.relationship;
      const optional = mayBeUnlinked(route.mount.resource, name, link);
      const data = schemaRef(`${link.type}Resource`);
      return {
        operationId: `read_${type}_${name}`,
        summary: `Read the ${link.type} ${a(type)} links${optional ? ' (data is null when it links none)' : ''}`,
        parameters: include,
        responses: {
          '200': answer(optional ? 'The linked record, or data null.' : 'The linked record.', {
            type: 'object',
            required: ['data'],
            properties: { data: optional ? { oneOf: [data, { type: 'null' }] } : data, included: schemaRef('Included') },
          }),
          ...errorResponses([400, 401, 404, 406, 415, 503]),
        },
      };
    }
    case 'readRelationship':
      return {
        operationId: `read_${type}_relationship`,
        summary: `Read the linkage of one relationship of ${a(type)}`,
        parameters: listParameters.filter((p) => p.name.startsWith('page[') || p.name === 'sort'),
        responses: {
          '200': answer(
            'Linkage: {type, id} or null for a to-one relationship, a page of them for a to-many one.',
            schemaRef('RelationshipDocument'),
          ),
          ...errorResponses([400, 401, 404, 406, 415, 503]),
        },
      };
    case 'updateRelationship':
      return {
        operationId: `update_${type}_relationship`,
        summary: `Link a to-one relationship of ${a(type)} to another record, or unlink it with {"data": null}`,
        requestBody: { required: true, content: jsonApi(schemaRef('LinkageDocument')) },
        responses: { '204': noContent('Linked.'), ...errorResponses([400, 401, 403, 404, 406, 409, 412, 413, 415, 422, 503]) },
      };
    case 'changeRelationshipMembers':
      return {
        operationId: `${route.method.toLowerCase()}_${type}_members`,
        summary: `Refused: a relationship of ${a(type)} changes through its PATCH (to-one) or through the records it lists (to-many)`,
        responses: errorResponses([400, 401, 403, 404, 406, 412, 415, 503]),
      };
  }
}

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

const errorDescriptions: Record<number, string> = {
  400: 'Malformed request: document, query parameter or filter.',
  401: 'No valid token.',
  403: 'Allowed to see, not to do.',
  404: 'No such record, or one the caller may not see.',
  406: 'The Accept header allows no answer this endpoint gives.',
  409: 'Conflict: another type or id than the path, or a name already taken.',
  412: 'If-Match names another version of the record.',
  413: 'Body over 1 MiB.',
  415: 'Body neither application/vnd.api+json nor application/json.',
  422: 'Invalid values.',
  503: 'The database is unavailable, or the server is busy or stopping.',
};

/** Responses of the given error statuses, each a JSON:API error document. */
export const errorResponses = (statuses: readonly number[]) =>
  Object.fromEntries(
    statuses.map((s) => [
      String(s),
      { description: errorDescriptions[s] ?? 'A JSON:API error document.', content: jsonApi(schemaRef('Errors')) },
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
      return {
        operationId: `list_${type}`,
        summary: `List ${type} records`,
        parameters: [...listParameters, typed],
        responses: { '200': answer('A page of records.', schemaRef(`${type}ListDocument`)), ...errorResponses([400, 401, 404, 503]) },
      };
    case 'create':
      return {
        operationId: `create_${type}`,
        summary: `Create ${a(type)}`,
        parameters: include,
        requestBody: { required: true, content: jsonApi(schemaRef(`${type}CreateInput`)) },
        responses: {
          '201': answer('The created record.', schemaRef(`${type}Document`)),
          ...errorResponses([400, 401, 403, 404, 409, 413, 415, 422, 503]),
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
          ...errorResponses([400, 401, 404, 503]),
        },
      };
    case 'update':
      return {
        operationId: `update_${type}`,
        summary: `Update ${a(type)}: only the attributes sent change`,
        requestBody: { required: true, content: jsonApi(schemaRef(`${type}Input`)) },
        responses: { '204': noContent('Updated.'), ...errorResponses([400, 401, 403, 404, 409, 412, 413, 415, 422, 503]) },
      };
    case 'delete':
      return {
        operationId: `delete_${type}`,
        summary: `Delete ${a(type)} and everything under it`,
        responses: { '204': noContent('Deleted.'), ...errorResponses([400, 401, 403, 404, 412, 503]) },
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
          ...errorResponses([400, 401, 404, 503]),
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
          ...errorResponses([400, 401, 404, 503]),
        },
      };
    case 'updateRelationship':
      return {
        operationId: `update_${type}_relationship`,
        summary: `Link a to-one relationship of ${a(type)} to another record, or unlink it with {"data": null}`,
        requestBody: { required: true, content: jsonApi(schemaRef('LinkageDocument')) },
        responses: { '204': noContent('Linked.'), ...errorResponses([400, 401, 403, 404, 409, 412, 413, 415, 422, 503]) },
      };
  }
}

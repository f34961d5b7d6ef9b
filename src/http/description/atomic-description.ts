import { maxAtomicOperations } from '../../jsonapi/atomic.js';
import { atomicMediaType } from '../../jsonapi/media-type.js';
import type { Registry } from '../../model/index.js';
import { atomicOperationsPath } from '../routes/atomic-route.js';
import { errorResponses } from './operations.js';

type Schema = Record<string, unknown>;

/** The OpenAPI path and schemas of `POST /api/v1/operations`. */
export function atomicOperationsDescription(registry: Registry): { paths: Record<string, Schema>; schemas: Record<string, Schema> } {
  const types = [...registry.all()].map((resource) => resource.type);
  const identifier: Schema = {
    type: 'object',
    required: ['type'],
    properties: {
      type: { type: 'string', enum: types },
      id: { type: 'string' },
      lid: { type: 'string', description: 'The local id an earlier add of the same request gave a new record.' },
    },
  };
  const operation: Schema = {
    type: 'object',
    required: ['op'],
    additionalProperties: false,
    properties: {
      op: { type: 'string', enum: ['add', 'update', 'remove'] },
      href: {
        type: 'string',
        description: 'A collection, record or relationship path, relative to /api/v1 (/organization/{id}/workspace) or absolute.',
      },
      ref: {
        ...identifier,
        properties: { ...(identifier.properties as Schema), relationship: { type: 'string' } },
        description: 'The record (or, with relationship, its relationship) the operation changes; instead of href.',
      },
      data: {
        description:
          'add and update: a resource object, as a create or update document holds it (an add may carry a lid); a relationship: its linkage. remove: none.',
      },
      meta: { type: 'object' },
    },
  };
  const content = (schema: string) => ({ [atomicMediaType]: { schema: { $ref: `#/components/schemas/${schema}` } } });
  return {
    schemas: {
      AtomicOperationsDocument: {
        type: 'object',
        required: ['atomic:operations'],
        properties: { 'atomic:operations': { type: 'array', minItems: 1, maxItems: maxAtomicOperations, items: operation } },
      },
      AtomicResultsDocument: {
        type: 'object',
        properties: {
          'atomic:results': {
            type: 'array',
            description: 'One result per operation, in order: {data} with the created record for an add, {} otherwise.',
            items: {
              type: 'object',
              properties: { data: { oneOf: types.map((type) => ({ $ref: `#/components/schemas/${type}Resource` })) } },
            },
          },
        },
      },
    },
    paths: {
      [atomicOperationsPath]: {
        post: {
          operationId: 'atomic_operations',
          summary: `Run up to ${maxAtomicOperations} add, update and remove operations in order, in one transaction: all take effect or none`,
          requestBody: { required: true, content: content('AtomicOperationsDocument') },
          responses: {
            '200': { description: 'Every operation took effect.', content: content('AtomicResultsDocument') },
            ...errorResponses(
              [400, 401, 403, 404, 406, 409, 413, 415, 422, 503],
              'A JSON:API error document; source.pointer leads into the failed operation (/atomic:operations/{index}/...).',
            ),
          },
        },
      },
    },
  };
}

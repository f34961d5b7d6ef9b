import { STATUS_CODES } from 'node:http';
import { ApiError, type Place } from '../errors.js';

/** One JSON:API error object. */
export interface ErrorObject {
  status: string;
  code: string;
  title: string;
  detail: string;
  source?: { pointer: string } | { parameter: string };
}

const titles: Record<number, string> = {
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The request document a problem's place is in: a resource object's, or a relationship's linkage. */
export type DocumentShape = 'resource' | 'linkage';

/**
 * A place as JSON:API names it: a JSON pointer into the request document (under `prefix`, for an
 * operation of a batch), or a query parameter.
 */
export function placeInDocument(at: Place, shape: DocumentShape, prefix = ''): Place {
  if ('pointer' in at) return { pointer: `${prefix}${at.pointer}` };
  if ('argument' in at) return at;
  if ('attribute' in at) return { pointer: `${prefix}/data/attributes/${at.attribute}` };
  // A relationship's own document is its linkage; in a resource object it is a member of relationships.
  const member = shape === 'linkage' ? '/data' : `/data/relationships/${at.relationship}`;
  const linkage = shape === 'linkage' ? '/data' : `${member}/data`;
  const pointer = at.part === undefined ? member : at.part === 'linkage' ? linkage : `${linkage}/type`;
  return { pointer: `${prefix}${pointer}` };
}

/** An error whose places are those of a document of `shape`: the request document the client sent. */
export function inDocument(error: unknown, shape: DocumentShape): unknown {
  if (!(error instanceof ApiError) || shape === 'resource') return error;
  return error.replaced((at) => (at === undefined ? undefined : placeInDocument(at, shape)));
}

/** An error as a JSON:API error document: one error object per problem. */
export function errorDocument(error: ApiError): { errors: ErrorObject[] } {
  return {
    errors: error.problems.map((p) => {
      const object: ErrorObject = {
        status: String(error.status),
        code: p.code,
        title: titles[error.status] ?? STATUS_CODES[error.status] ?? 'Error',
        detail: p.detail,
      };
      const at = p.at === undefined ? undefined : placeInDocument(p.at, 'resource');
      if (at !== undefined && 'pointer' in at) object.source = { pointer: at.pointer };
      else if (at !== undefined && 'argument' in at) object.source = { parameter: at.argument };
      return object;
    }),
  };
}

import type { ApiError } from '../errors.js';

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

/** An error as a JSON:API error document: one error object per problem. */
export function errorDocument(error: ApiError): { errors: ErrorObject[] } {
  return {
    errors: error.problems.map((p) => {
      const object: ErrorObject = { status: String(error.status), code: p.code, title: titles[error.status] ?? 'Error', detail: p.detail };
      if (p.pointer !== undefined) object.source = { pointer: p.pointer };
      else if (p.parameter !== undefined) object.source = { parameter: p.parameter };
      return object;
    }),
  };
}

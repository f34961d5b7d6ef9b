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

interface Problem {
  code: string;
  detail: string;
  pointer?: string;
  parameter?: string;
}

/**
 * A request that cannot be served, as a value: every layer throws these and one place renders them.
 * Several problems of the same status (every invalid attribute of a document) travel together.
 */
export class ApiError extends Error {
  readonly problems: Problem[];
  /** Extra response headers, such as WWW-Authenticate on a 401. */
  headers: Record<string, string> = {};

  constructor(
    readonly status: number,
    problems: Problem | Problem[],
  ) {
    const list = Array.isArray(problems) ? problems : [problems];
    super(list.map((p) => p.detail).join('; '));
    this.problems = list;
  }

  toDocument(): { errors: ErrorObject[] } {
    return {
      errors: this.problems.map((p) => {
        const error: ErrorObject = {
          status: String(this.status),
          code: p.code,
          title: titles[this.status] ?? 'Error',
          detail: p.detail,
        };
        if (p.pointer !== undefined) error.source = { pointer: p.pointer };
        else if (p.parameter !== undefined) error.source = { parameter: p.parameter };
        return error;
      }),
    };
  }
}

export const badRequest = (code: string, detail: string, where?: { pointer?: string; parameter?: string }) =>
  new ApiError(400, { code, detail, ...where });

export const badParameter = (parameter: string, detail: string) =>
  new ApiError(400, { code: 'invalid_query_parameter', detail, parameter });

export const notFound = (type: string, id: string) =>
  new ApiError(404, { code: 'not_found', detail: `Unknown identifier ${id} for ${type}` });

export const forbidden = (detail: string) => new ApiError(403, { code: 'forbidden', detail });

export const conflict = (detail: string, pointer?: string) =>
  new ApiError(409, { code: 'conflict', detail, ...(pointer === undefined ? {} : { pointer }) });

export function unauthorized(detail: string, invalidToken: boolean): ApiError {
  const error = new ApiError(401, { code: 'unauthorized', detail });
  error.headers['www-authenticate'] = invalidToken
    ? `Bearer error="invalid_token", error_description="${detail.replace(/"/g, "'")}"`
    : 'Bearer';
  return error;
}

export const unavailable = () =>
  new ApiError(503, { code: 'database_unavailable', detail: 'The database is unavailable; retry shortly.' });

export const internalError = () =>
  new ApiError(500, { code: 'internal_error', detail: 'The server failed to process the request.' });

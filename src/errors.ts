/** One thing wrong with a request: a stable code, a sentence for people, and where it is. */
export interface Problem {
  code: string;
  detail: string;
  /** A JSON pointer into the request document. */
  pointer?: string;
  /** The query parameter at fault. */
  parameter?: string;
}

/**
 * A request that cannot be served, as a value: every layer throws these and each transport renders
 * them in one place. Several problems of the same status (every invalid attribute of a document)
 * travel together.
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
}

export const badRequest = (code: string, detail: string, where?: { pointer?: string; parameter?: string }) =>
  new ApiError(400, { code, detail, ...where });

export const badParameter = (parameter: string, detail: string) =>
  new ApiError(400, { code: 'invalid_query_parameter', detail, parameter });

/** Clients match on this detail, as Terrakube words it. */
export const notFound = (type: string, id: string) =>
  new ApiError(404, { code: 'not_found', detail: `Unknown identifier ${id} for ${type}` });

export const forbidden = (detail: string) => new ApiError(403, { code: 'forbidden', detail });

export const conflict = (detail: string, pointer?: string) =>
  new ApiError(409, { code: 'conflict', detail, ...(pointer === undefined ? {} : { pointer }) });

export const invalidValue = (detail: string, pointer: string) => new ApiError(422, { code: 'invalid_value', detail, pointer });

export function unauthorized(detail: string, invalidToken: boolean): ApiError {
  const error = new ApiError(401, { code: 'unauthorized', detail });
  error.headers['www-authenticate'] = invalidToken
    ? `Bearer error="invalid_token", error_description="${detail.replace(/"/g, "'")}"`
    : 'Bearer';
  return error;
}

export const unavailable = () => new ApiError(503, { code: 'database_unavailable', detail: 'The database is unavailable; retry shortly.' });

export const internalError = () => new ApiError(500, { code: 'internal_error', detail: 'The server failed to process the request.' });

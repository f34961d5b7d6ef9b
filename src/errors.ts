/**
 * Where a problem lies, in the engine's own terms; each transport says it in its own words (JSON:API
 * a pointer into its document or a query parameter, GraphQL the field or argument).
 */
export type Place =
  /** A value the input sets. */
  | { attribute: string }
  /** A link the input sets: the relationship itself, the record it links (`linkage`), or that record's type. */
  | { relationship: string; part?: 'linkage' | 'type' }
  /** An argument of a read or list (a filter, the sort, the page), named as the transport named it. */
  | { argument: string }
  /** A member of a transport's own envelope (JSON:API's `/data/type`, an atomic operation's `/op`). */
  | { pointer: string };

/** One thing wrong with a request: a stable code, a sentence for people, and where it is. */
export interface Problem {
  code: string;
  detail: string;
  at?: Place;
}

/** What a client may do about an error besides reading it; the HTTP layer turns each into a header. */
export interface ErrorAdvice {
  /** Send the request again after this many seconds (Retry-After). */
  retryAfterSeconds?: number;
  /** How to authenticate (WWW-Authenticate). */
  challenge?: string;
  /** The methods the path answers (Allow). */
  allow?: readonly string[];
}

/**
 * A request that cannot be served, as a value: every layer throws these and each transport renders
 * them in one place. Several problems of the same status (every invalid attribute of a document)
 * travel together.
 */
export class ApiError extends Error {
  readonly problems: Problem[];
  readonly advice: ErrorAdvice;

  constructor(
    readonly status: number,
    problems: Problem | Problem[],
    advice: ErrorAdvice = {},
  ) {
    const list = Array.isArray(problems) ? problems : [problems];
    super(list.map((p) => p.detail).join('; '));
    this.problems = list;
    this.advice = advice;
  }

  /** The same error with each problem's place given anew (a transport saying it in its terms). */
  replaced(place: (at: Place | undefined) => Place | undefined): ApiError {
    const problems = this.problems.map(({ code, detail, at }) => {
      const moved = place(at);
      return moved === undefined ? { code, detail } : { code, detail, at: moved };
    });
    return new ApiError(this.status, problems, this.advice);
  }
}

export const badRequest = (code: string, detail: string, at?: Place) =>
  new ApiError(400, { code, detail, ...(at === undefined ? {} : { at }) });

export const badArgument = (argument: string, detail: string) =>
  new ApiError(400, { code: 'invalid_query_parameter', detail, at: { argument } });

/** Clients match on this detail, as Terrakube words it. */
export const notFound = (type: string, id: string) =>
  new ApiError(404, { code: 'not_found', detail: `Unknown identifier ${id} for ${type}` });

export const forbidden = (detail: string) => new ApiError(403, { code: 'forbidden', detail });

export const conflict = (detail: string, at?: Place) =>
  new ApiError(409, { code: 'conflict', detail, ...(at === undefined ? {} : { at }) });

export const invalidValue = (detail: string, at: Place) => new ApiError(422, { code: 'invalid_value', detail, at });

export function unauthorized(detail: string, invalidToken: boolean): ApiError {
  const challenge = invalidToken ? `Bearer error="invalid_token", error_description="${detail.replace(/"/g, "'")}"` : 'Bearer';
  return new ApiError(401, { code: 'unauthorized', detail }, { challenge });
}

export const unavailable = () => new ApiError(503, { code: 'database_unavailable', detail: 'The database is unavailable; retry shortly.' });

export const internalError = () => new ApiError(500, { code: 'internal_error', detail: 'The server failed to process the request.' });

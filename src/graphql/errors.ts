import { GraphQLError, type SourceLocation } from 'graphql';
import { ApiError, internalError, type Problem } from '../errors.js';
import { explainFailure } from '../engine/index.js';

/** One entry of a GraphQL answer's `errors`. */
export interface GraphQLErrorObject {
  message: string;
  locations?: readonly SourceLocation[];
  path?: readonly (string | number)[];
  extensions: {
    code: string;
    status: number;
    /** The attribute or relationship of `data` at fault. */
    field?: string;
    /** The argument at fault. */
    argument?: string;
  };
}

/** Called with an error the API cannot explain (a bug), to be logged; the client sees a bare 500. */
export type UnexpectedError = (error: Error) => void;

/**
 * An ApiError as GraphQL errors, one per problem: the detail is the message, and the code and
 * status travel in `extensions`, with the field of `data` or the argument at fault (a page is
 * `first`).
 */
export function apiErrorObjects(error: ApiError, at: Pick<GraphQLErrorObject, 'locations' | 'path'> = {}): GraphQLErrorObject[] {
  return error.problems.map((problem) => {
    // A query parameter of JSON:API is an argument here.
    const code = problem.code === 'invalid_query_parameter' ? 'invalid_argument' : problem.code;
    return { message: problem.detail, ...at, extensions: { code, status: error.status, ...where(problem) } };
  });
}

function where({ at }: Problem): { field?: string; argument?: string } {
  if (at === undefined || 'pointer' in at) return {};
  if ('attribute' in at) return { field: at.attribute };
  if ('relationship' in at) return { field: at.relationship };
  return { argument: at.argument === 'page' ? 'first' : at.argument };
}

/**
 * The errors of a GraphQL result. Those raised by a resolver carry the error it threw: an
 * ApiError, a database failure the store explains, or a bug (logged, and answered as a bare 500
 * without message, stack or SQL). The others are graphql-js's own: syntax and validation errors,
 * which quote only the query.
 */
export function resultErrors(errors: readonly GraphQLError[], unexpected: UnexpectedError): GraphQLErrorObject[] {
  return errors.flatMap((error) => {
    const at = {
      ...(error.locations === undefined ? {} : { locations: error.locations }),
      ...(error.path === undefined ? {} : { path: error.path }),
    };
    const original = error.originalError;
    if (original === undefined || original instanceof GraphQLError) {
      return [{ message: error.message, ...at, extensions: { code: 'invalid_query', status: 400 } }];
    }
    return apiErrorObjects(toApiError(original, unexpected), at);
  });
}

function toApiError(error: unknown, unexpected: UnexpectedError): ApiError {
  if (error instanceof ApiError) return error;
  const fromDatabase = explainFailure(error);
  if (fromDatabase !== undefined) return fromDatabase;
  unexpected(error instanceof Error ? error : new Error('a non-error was thrown'));
  return internalError();
}

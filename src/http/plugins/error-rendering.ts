import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, badRequest, internalError, type Place } from '../../errors.js';
import { errorDocument } from '../../jsonapi/errors.js';
import type { Logger } from '../../log.js';
import { explainFailure } from '../../engine/index.js';
import { noteFailure } from './request-log.js';
import { sendDocument } from './send-document.js';

/**
 * Renders every failure as a JSON:API error document, in one place. Errors the API explains keep
 * their message; anything else is logged and answered with a bare 500 that shows no stack, SQL or
 * value.
 */
export function renderError(log: Logger) {
  return (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const apiError = toApiError(error);
    noteFailure(request, apiError);
    // 503 is the database or the server's load, 502 a notification destination's failure, both told
    // to the client: neither is a failure of this server to log.
    if (apiError.status >= 500 && apiError.status !== 503 && apiError.status !== 502) {
      log.error(
        { reqId: request.id, error: describeError(error), method: request.method, path: request.url.split('?')[0] },
        'request failed',
      );
    }
    // Also here for errors met before routing, which skip the hooks that set it.
    reply.header('x-request-id', request.id);
    return sendDocument(reply.headers(adviceHeaders(apiError)), apiError.status, errorDocument(apiError));
  };
}

/**
 * Every error rendering of the service: unknown paths, a known path asked with a method it does not
 * answer (405 with `Allow`, when `allowedMethods` says which it answers), failed requests, and
 * errors before routing.
 */
export const errorRendering = fp(
  (app: FastifyInstance, { log, allowedMethods }: { log: Logger; allowedMethods?: (path: string) => string[] | undefined }) => {
    const render = renderError(log);
    app.setErrorHandler(render);
    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?')[0] ?? '';
      const allow = allowedMethods?.(path);
      if (allow !== undefined) {
        const error = new ApiError(
          405,
          { code: 'method_not_allowed', detail: `${path} does not answer ${request.method}; it answers ${allow.join(', ')}.` },
          { allow },
        );
        return render(error, request, reply);
      }
      return render(new ApiError(404, { code: 'not_found', detail: `No endpoint ${request.method} ${path}.` }), request, reply);
    });
  },
  { name: 'error-rendering' },
);

/** The headers that carry what an error advises the client to do. */
export function adviceHeaders({ advice }: ApiError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (advice.retryAfterSeconds !== undefined) headers['retry-after'] = String(advice.retryAfterSeconds);
  if (advice.challenge !== undefined) headers['www-authenticate'] = advice.challenge;
  if (advice.allow !== undefined) headers.allow = advice.allow.join(', ');
  return headers;
}

/** The ApiError a failure is answered with, whatever raised it: the one map every transport renders from. */
export function toApiError(error: FastifyError | Error): ApiError {
  if (error instanceof ApiError) return error;
  const validation = schemaValidationError(error);
  if (validation !== undefined) return validation;
  const fromDatabase = explainFailure(error);
  if (fromDatabase !== undefined) return fromDatabase;
  const code = 'code' in error ? error.code : undefined;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, {
        code: 'payload_too_large',
        detail: 'The request body is larger than its route takes: 1 MiB, or STRATUM_STATE_MAX_MIB for a Terraform state.',
      });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, {
        code: 'unsupported_media_type',
        detail: 'Request bodies must be application/vnd.api+json or application/json.',
      });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return badRequest('bad_request', error.message);
    default:
      break;
  }
  const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status >= 400 && status < 500) return new ApiError(status, { code: 'bad_request', detail: error.message });
  return internalError();
}

interface SchemaViolation {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  parentSchema?: { description?: unknown };
}

/**
 * A body or query that its route's schema refuses (the token endpoints): a 400 per problem,
 * pointing at the field or naming the query parameter, and saying what it takes when its schema
 * describes it.
 */
function schemaValidationError(error: Error): ApiError | undefined {
  const { validation: violations, validationContext } = error as Error & { validation?: SchemaViolation[]; validationContext?: string };
  if (!Array.isArray(violations) || violations.length === 0) return undefined;
  const inQuery = validationContext === 'querystring';
  return new ApiError(
    400,
    violations.map((violation) => {
      const named = violation.params.missingProperty ?? violation.params.additionalProperty;
      const pointer = typeof named === 'string' ? `${violation.instancePath}/${named}` : violation.instancePath;
      const field = pointer === '' ? 'The body' : pointer.slice(1);
      // A query parameter is named as such; the body's fields by a JSON pointer.
      const at: Place = inQuery ? { argument: field } : { pointer };
      const invalid = inQuery ? 'invalid_query_parameter' : 'invalid_field';
      if (violation.keyword === 'additionalProperties') {
        return { code: inQuery ? invalid : 'unknown_field', detail: `Unknown ${inQuery ? 'parameter' : 'field'} ${field}.`, at };
      }
      if (violation.keyword === 'required') return { code: invalid, detail: `${field} is required.`, at };
      const description = violation.parentSchema?.description;
      const what = typeof description === 'string' ? ` (${description})` : '';
      return { code: invalid, detail: `${field} ${violation.message ?? 'is not valid'}${what}.`, at };
    }),
  );
}

/**
 * What of an unexpected error goes to the log: its kind, message and stack. Not the whole object,
 * because driver errors carry extra members (PostgreSQL's `detail` quotes the failing row) that
 * may hold values a log must never see.
 */
export function describeError(error: Error): { name: string; message: string; code?: unknown; stack?: string } {
  const code = (error as Error & { code?: unknown }).code;
  return {
    name: error.name,
    message: error.message,
    ...(code === undefined ? {} : { code }),
    ...(error.stack === undefined ? {} : { stack: error.stack }),
  };
}

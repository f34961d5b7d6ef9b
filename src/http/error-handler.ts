import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, badRequest, internalError, unavailable } from '../jsonapi/errors.js';
import type { Logger } from '../log.js';
import { classifyDatabaseError } from '../store/database-errors.js';
import { sendDocument } from './send-document.js';

/**
 * Renders every failure as a JSON:API error document, in one place. Errors the API explains keep
 * their message; anything else is logged and answered with a bare 500 that shows no stack, SQL or
 * value.
 */
export function errorHandler(log: Logger) {
  return (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const apiError = toApiError(error);
    if (apiError.status >= 500 && apiError.status !== 503) {
      log.error({ error: describeError(error), method: request.method, path: request.url.split('?')[0] }, 'request failed');
    }
    return sendDocument(reply.headers(apiError.headers), apiError.status, apiError.toDocument());
  };
}

function toApiError(error: FastifyError | Error): ApiError {
  if (error instanceof ApiError) return error;
  const failure = classifyDatabaseError(error);
  if (failure?.kind === 'unavailable') return unavailable();
  const code = 'code' in error ? error.code : undefined;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, { code: 'payload_too_large', detail: 'The request body is larger than 1 MiB.' });
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

/**
 * What of an unexpected error goes to the log: its kind, message and stack. Not the whole object,
 * because driver errors carry extra members (PostgreSQL's `detail` quotes the failing row) that
 * may hold values a log must never see.
 */
export function describeError(error: Error): { name: string; message: string; code?: unknown; stack?: string } {
  const code = (error as Error & { code?: unknown }).code;
  return { name: error.name, message: error.message, ...(code === undefined ? {} : { code }), ...(error.stack === undefined ? {} : { stack: error.stack }) };
}

import type { FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import { checkMediaTypes, type JsonApiEndpoint } from '../../jsonapi/media-type.js';

/** A request header as one value: repeated ones joined with commas, as HTTP reads a list. */
export function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** Names a request header the answer depends on in its Vary, beside those named already (CORS names Origin). */
export function varyWith(reply: FastifyReply, header: string): void {
  const current = reply.getHeader('vary');
  const named = (typeof current === 'string' ? current.split(',') : []).map((name) => name.trim()).filter((name) => name !== '');
  if (named.some((name) => name === '*' || name.toLowerCase() === header.toLowerCase())) return;
  reply.header('vary', [...named, header].join(', '));
}

/**
 * The first step of a JSON:API route, once the caller is known and before its body is read: the
 * answer varies with Accept, and the request's media types are checked (jsonapi/media-type.ts), so
 * that a 415 or 406 is answered whatever the body holds.
 */
export function jsonApiMediaTypes(endpoint: JsonApiEndpoint): preParsingHookHandler {
  return (request, reply, payload, done) => {
    varyWith(reply, 'Accept');
    try {
      checkMediaTypes(endpoint, headerOf(request, 'content-type'), headerOf(request, 'accept'));
    } catch (error) {
      done(error as Error);
      return;
    }
    done(null, payload);
  };
}

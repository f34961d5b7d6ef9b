import { ApiError } from '../errors.js';
import { acceptedMediaRanges, parseMediaType, type MediaType } from '../media-types.js';
import { mediaType } from './document.js';

/** The URI of JSON:API's Atomic Operations extension, as the `ext` media type parameter names it. */
export const atomicExtension = 'https://jsonapi.org/ext/atomic';

/** The media type of documents with atomic operations or results. */
export const atomicMediaType = `${mediaType}; ext="${atomicExtension}"`;

/** Whether a JSON:API media type's parameters are ones Stratum serves: only ext and profile, and no extension but atomic. */
function servable(type: MediaType): boolean {
  for (const name of type.parameters.keys()) if (name !== 'ext' && name !== 'profile') return false;
  const extensions = (type.parameters.get('ext') ?? '').split(' ').filter((uri) => uri !== '');
  return extensions.every((uri) => uri === atomicExtension);
}

/** The JSON:API endpoints, by what their documents are: records and relationships, or atomic operations. */
export type JsonApiEndpoint = 'resource' | 'atomic';

/**
 * Checks the media types of a request to a JSON:API endpoint, as JSON:API requires of every one.
 * `Content-Type`: the JSON:API media type with a parameter other than ext and profile, or an
 * extension Stratum does not have, is a 415 (on any method: a GET with a bare one, as the Terraform
 * provider sends, is fine); a resource endpoint also takes `application/json`, and atomic
 * operations are sent with their extension only. `Accept`: when it lists the JSON:API media type,
 * at least one instance must allow the answer (the same parameters and extensions), else 406; an
 * Accept without it (none, any type, the web UI's `application/json, ...`) is answered JSON:API
 * all the same.
 */
export function checkMediaTypes(endpoint: JsonApiEndpoint, contentType: string | undefined, accept: string | undefined): void {
  const sent = contentType === undefined ? undefined : parseMediaType(contentType);
  if (endpoint === 'atomic') {
    const extensions = (sent?.parameters.get('ext') ?? '').split(' ');
    if (sent?.essence !== mediaType || !servable(sent) || !extensions.includes(atomicExtension)) {
      throw unsupported(`Atomic operations are sent as ${atomicMediaType}, with no other extension and no parameter but ext and profile.`);
    }
  } else if (sent?.essence === mediaType && !servable(sent)) {
    throw unsupported(
      `JSON:API documents are sent as ${mediaType}, with no parameter but ext and profile and no extension but atomic, or as application/json.`,
    );
  }
  if (accept === undefined || accept.trim() === '') return;
  const jsonApi = acceptedMediaRanges(accept).filter((range) => range?.essence === mediaType);
  if (jsonApi.length > 0 && !jsonApi.some((range) => range !== undefined && range.weight > 0 && servable(range))) {
    const answer = endpoint === 'atomic' ? atomicMediaType : mediaType;
    throw new ApiError(406, {
      code: 'not_acceptable',
      detail: `The answer is ${answer}; Accept allows no such JSON:API media type (no extension but atomic, no parameter but ext and profile).`,
    });
  }
}

const unsupported = (detail: string) => new ApiError(415, { code: 'unsupported_media_type', detail });

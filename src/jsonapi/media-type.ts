import { ApiError } from '../errors.js';
import { mediaType } from './document.js';

/** The URI of JSON:API's Atomic Operations extension, as the `ext` media type parameter names it. */
export const atomicExtension = 'https://jsonapi.org/ext/atomic';

/** The media type of documents with atomic operations or results. */
export const atomicMediaType = `${mediaType}; ext="${atomicExtension}"`;

interface MediaType {
  essence: string;
  parameters: Map<string, string>;
}

/**
 * One media type of a header (`type/subtype; name=value; name="quoted value"`): its essence in
 * lower case and its parameters by lower-case name. Undefined when it does not parse.
 */
function parseMediaType(text: string): MediaType | undefined {
  const match = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*/.exec(text);
  if (match?.[1] === undefined) return undefined;
  const parameters = new Map<string, string>();
  const parameter = /;\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)=("(?:[^"\\]|\\.)*"|[!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*/y;
  parameter.lastIndex = match[0].length;
  while (parameter.lastIndex < text.length) {
    const found = parameter.exec(text);
    if (found?.[1] === undefined || found[2] === undefined) return undefined;
    const value = found[2].startsWith('"') ? found[2].slice(1, -1).replace(/\\(.)/g, '$1') : found[2];
    parameters.set(found[1].toLowerCase(), value);
  }
  return { essence: match[1].toLowerCase(), parameters };
}

/** The media types of an Accept header, split at the commas outside quotes. */
function acceptedMediaTypes(header: string): (MediaType | undefined)[] {
  return (header.match(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g) ?? []).map(parseMediaType);
}

/** Whether a JSON:API media type's parameters are ones this endpoint serves: only ext and profile, and no extension but atomic. */
function servable(type: MediaType): boolean {
  for (const name of type.parameters.keys()) if (name !== 'ext' && name !== 'profile') return false;
  const extensions = (type.parameters.get('ext') ?? '').split(' ').filter((uri) => uri !== '');
  return extensions.every((uri) => uri === atomicExtension);
}

/**
 * Checks the media types of an atomic operations request as JSON:API and its extension require: the
 * body is JSON:API with the atomic extension in `ext` (no other extension, no parameter but ext and
 * profile), else 415; and when Accept lists the JSON:API media type, at least one of its instances
 * must allow the answer, which carries the atomic extension, else 406.
 */
export function checkAtomicMediaTypes(contentType: string | undefined, accept: string | undefined): void {
  const sent = contentType === undefined ? undefined : parseMediaType(contentType);
  const extensions = (sent?.parameters.get('ext') ?? '').split(' ');
  if (sent?.essence !== mediaType || !servable(sent) || !extensions.includes(atomicExtension)) {
    throw new ApiError(415, {
      code: 'unsupported_media_type',
      detail: `Atomic operations are sent as ${atomicMediaType}, with no other extension and no parameter but ext and profile.`,
    });
  }
  if (accept === undefined || accept.trim() === '') return;
  const jsonApi = acceptedMediaTypes(accept).filter((type): type is MediaType => type?.essence === mediaType);
  if (jsonApi.length > 0 && !jsonApi.some(servable)) {
    throw new ApiError(406, {
      code: 'not_acceptable',
      detail: `The answer is ${atomicMediaType}; Accept allows no such JSON:API media type (no extension but atomic, no parameter but ext and profile).`,
    });
  }
}

import type { Linkage, LinkDraft, RecordDraft } from '../engine/index.js';
import { badRequest, conflict } from '../errors.js';
import type { ResourceDeclaration } from '../model/index.js';

/** What a document is for: a new record, or a change of the record whose id the path names. */
export type DocumentUse = { action: 'create' } | { action: 'update'; id: string };

/**
 * Reads the resource object of a create or update document out of its envelope: a malformed
 * document or member is a 400, another type than the endpoint's a 409, and on update an id other
 * than the path's a 409. What it sets is checked by the engine against the declaration.
 * `included` and `meta` are ignored, since clients send them back as they received them.
 */
export function parseResourceDocument(body: unknown, resource: ResourceDeclaration, use: DocumentUse): RecordDraft {
  if (!isObject(body)) throw badRequest('invalid_document', 'The request body must be a JSON:API document object.');
  const data = body.data;
  if (!isObject(data)) {
    throw badRequest('invalid_document', 'The document must have a data member holding one resource object.', { pointer: '/data' });
  }
  const id = checkTypeAndId(data, resource, use);
  const attributes = data.attributes ?? {};
  if (!isObject(attributes)) throw badRequest('invalid_document', 'data.attributes must be an object.', { pointer: '/data/attributes' });
  const relationships = data.relationships ?? {};
  if (!isObject(relationships)) {
    throw badRequest('invalid_document', 'data.relationships must be an object.', { pointer: '/data/relationships' });
  }
  // Built from entries, so that every name stays an own member, `__proto__` too, and is judged as sent.
  const links = Object.fromEntries(
    Object.entries(relationships).map(([name, member]): [string, LinkDraft] => {
      if (!isObject(member) || !Object.hasOwn(member, 'data')) {
        throw badRequest('invalid_document', `Relationship ${name} must be an object with a data member.`, {
          pointer: `/data/relationships/${name}`,
        });
      }
      return [name, linkDraft(member.data)];
    }),
  );
  return { ...(id === undefined ? {} : { id }), attributes, relationships: links };
}

/** A relationship's linkage: null, a resource identifier, or a list of them. */
function linkDraft(linkage: unknown): LinkDraft {
  if (linkage === null) return { kind: 'none' };
  if (Array.isArray(linkage))
    return { kind: 'records', members: linkage.map((member: unknown) => (member === null ? malformed : linkDraft(member))) };
  if (isObject(linkage) && typeof linkage.id === 'string' && linkage.id !== '')
    return { kind: 'record', id: linkage.id, type: linkage.type };
  return malformed;
}

const malformed: LinkDraft = { kind: 'malformed', code: 'invalid_value', detail: 'A relationship links {type, id} or null.' };

/**
 * A relationship document: `{"data": {"type", "id"}}` or `{"data": null}` for a to-one one; a list
 * of those for a to-many one.
 */
export function parseLinkageDocument(body: unknown): Linkage | null | Linkage[] {
  const data = isObject(body) ? body.data : undefined;
  if (data === null) return null;
  if (Array.isArray(data)) return data.map((member, index) => linkageAt(member, `/data/${index}`));
  return linkageAt(data, '/data');
}

function linkageAt(data: unknown, pointer: string): Linkage {
  if (isObject(data) && typeof data.type === 'string' && typeof data.id === 'string' && data.id !== '')
    return { type: data.type, id: data.id };
  throw badRequest('invalid_document', 'A relationship document is {"data": {"type", "id"}}, {"data": null} or {"data": [...]}.', {
    pointer,
  });
}

/** The id a resource object gives, once its type is the endpoint's and the id agrees with the path. */
function checkTypeAndId(data: Record<string, unknown>, resource: ResourceDeclaration, use: DocumentUse): string | undefined {
  if (data.type === undefined || data.type === null || data.type === '') {
    throw badRequest('invalid_document', 'data.type is required.', { pointer: '/data/type' });
  }
  if (typeof data.type !== 'string') throw badRequest('invalid_document', 'data.type must be a string.', { pointer: '/data/type' });
  if (data.type !== resource.type) {
    throw conflict(`data.type is ${data.type}, but this endpoint takes ${resource.type}.`, { pointer: '/data/type' });
  }
  const id = data.id;
  if (id !== undefined && id !== null && typeof id !== 'string') {
    throw badRequest('invalid_document', 'data.id must be a string.', { pointer: '/data/id' });
  }
  if (typeof id !== 'string' || id === '') return undefined;
  if (use.action === 'update' && id !== use.id)
    throw conflict(`data.id ${id} does not match the id ${use.id} in the path.`, { pointer: '/data/id' });
  return id;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

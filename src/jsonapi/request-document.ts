import { assertKnownAttributes, assertNoProblems, readAttributeValues, type InputMode, type RecordInput } from '../engine/input.js';
import type { Linkage } from '../engine/relationships.js';
import { badRequest, conflict, forbidden, type Place, type Problem } from '../errors.js';
import type { Registry, ResourceDeclaration } from '../model/index.js';

/**
 * Reads a create or update document for one resource. Problems are reported in the order
 * decisions.md sets: a malformed document (400), an unknown attribute (400), then missing, mistyped
 * or invalid values (422, all of them at once). `included`, `meta` and read-only attributes are
 * ignored, since clients send them back as they received them.
 */
export function parseResourceDocument(body: unknown, resource: ResourceDeclaration, registry: Registry, mode: InputMode): RecordInput {
  if (!isObject(body)) throw badRequest('invalid_document', 'The request body must be a JSON:API document object.');
  const data = body.data;
  if (!isObject(data)) {
    throw badRequest('invalid_document', 'The document must have a data member holding one resource object.', { pointer: '/data' });
  }
  checkTypeAndId(data, resource, mode);

  const attributes = data.attributes ?? {};
  if (!isObject(attributes)) throw badRequest('invalid_document', 'data.attributes must be an object.', { pointer: '/data/attributes' });
  const relationships = data.relationships ?? {};
  if (!isObject(relationships)) {
    throw badRequest('invalid_document', 'data.relationships must be an object.', { pointer: '/data/relationships' });
  }

  assertKnownAttributes(registry, resource, attributes);
  const problems: Problem[] = [];
  const links = readRelationships(relationships, resource, registry, problems);
  for (const [name, relationship] of Object.entries(resource.relationships)) {
    if (relationship.kind !== 'toOne' || !relationship.required) continue;
    const missing = mode.action === 'create' ? (links[name] ?? null) === null : links[name] === null;
    if (missing) {
      problems.push({
        code: 'required',
        detail: `Relationship ${name} must link a ${relationship.type}.`,
        at: { relationship: name },
      });
    }
  }
  const values = readAttributeValues(resource, attributes, mode, problems);
  assertNoProblems(problems);
  return { attributes: values, relationships: links };
}

/** A to-one relationship document: `{"data": {"type", "id"}}` or `{"data": null}`. */
export function parseLinkageDocument(body: unknown): Linkage | null {
  const data = isObject(body) ? body.data : undefined;
  if (data === null) return null;
  if (isObject(data) && typeof data.type === 'string' && typeof data.id === 'string' && data.id !== '')
    return { type: data.type, id: data.id };
  throw badRequest('invalid_document', 'A to-one relationship document is {"data": {"type", "id"}} or {"data": null}.', {
    pointer: '/data',
  });
}

function checkTypeAndId(data: Record<string, unknown>, resource: ResourceDeclaration, mode: InputMode): void {
  if (data.type === undefined || data.type === null || data.type === '') {
    throw badRequest('invalid_document', 'data.type is required.', { pointer: '/data/type' });
  }
  if (typeof data.type !== 'string') throw badRequest('invalid_document', 'data.type must be a string.', { pointer: '/data/type' });
  if (data.type !== resource.type)
    throw conflict(`data.type is ${data.type}, but this endpoint takes ${resource.type}.`, { pointer: '/data/type' });
  const id = data.id;
  if (id !== undefined && id !== null && typeof id !== 'string') {
    throw badRequest('invalid_document', 'data.id must be a string.', { pointer: '/data/id' });
  }
  if (mode.action === 'create' && typeof id === 'string' && id !== '') {
    throw forbidden('Client-generated ids are not supported; leave data.id out and the server assigns one.');
  }
  if (mode.action === 'update' && typeof id === 'string' && id !== '' && id !== mode.id) {
    throw conflict(`data.id ${id} does not match the id ${mode.id} in the path.`, { pointer: '/data/id' });
  }
}

/** The to-one links a document sets; relationships not modeled yet are accepted as null only. */
function readRelationships(
  relationships: Record<string, unknown>,
  resource: ResourceDeclaration,
  registry: Registry,
  problems: Problem[],
): Record<string, string | null> {
  const links: Record<string, string | null> = {};
  for (const [name, member] of Object.entries(relationships)) {
    const pointer = `/data/relationships/${name}`;
    const at: Place = { relationship: name };
    const declared = registry.relationship(resource, name);
    if (declared === undefined && registry.unmodeled(name) === undefined) {
      throw badRequest('unknown_relationship', `Unknown relationship ${name} in ${resource.type}.`, at);
    }
    if (!isObject(member) || !Object.hasOwn(member, 'data')) {
      throw badRequest('invalid_document', `Relationship ${name} must be an object with a data member.`, { pointer });
    }
    const linkage = member.data;
    const empty = linkage === null || (Array.isArray(linkage) && linkage.length === 0);
    if (declared === undefined) {
      if (!empty) problems.push({ code: 'not_supported', detail: `Relationship ${name} is not supported yet; send it as null.`, at });
    } else if (declared.kind === 'toMany') {
      if (!empty) {
        problems.push({
          code: 'not_supported',
          detail: `Relationship ${name} is changed through the ${declared.type} endpoints, not in this document.`,
          at,
        });
      }
    } else if (linkage === null) {
      links[name] = null;
    } else if (!isObject(linkage) || typeof linkage.id !== 'string' || linkage.id === '') {
      problems.push({
        code: 'invalid_value',
        detail: `Relationship ${name} must link {type, id} or null.`,
        at: { relationship: name, part: 'linkage' },
      });
    } else if (linkage.type !== declared.type) {
      problems.push({
        code: 'invalid_value',
        detail: `Relationship ${name} links ${declared.type} records.`,
        at: { relationship: name, part: 'type' },
      });
    } else {
      links[name] = linkage.id;
    }
  }
  return links;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import type { Attribute, ResourceDeclaration } from '../engine/declaration.js';
import { ignoredOnInput, unmodeledRelationships } from '../engine/declaration.js';
import { ApiError, badRequest, conflict, forbidden } from './errors.js';

/** Attribute values as the API speaks them: strings, booleans, integers and nulls. */
export type AttributeValues = Record<string, string | boolean | number | null>;

export interface ResourceInput {
  attributes: AttributeValues;
  /** To-one relationships the body sets, by name: a related id, or null to unlink. */
  links: Record<string, string | null>;
}

type Mode = { action: 'create' } | { action: 'update'; id: string };

interface Problem {
  code: string;
  detail: string;
  pointer: string;
}

/**
 * Reads a create or update document for one resource. Problems are reported in the order
 * decisions.md sets: a malformed document (400), an unknown attribute (400), then missing, mistyped
 * or invalid values (422, all of them at once). `included`, `meta` and read-only attributes are
 * ignored, since clients send them back as they received them.
 */
export function parseResourceDocument(body: unknown, resource: ResourceDeclaration, mode: Mode): ResourceInput {
  if (!isObject(body)) throw badRequest('invalid_document', 'The request body must be a JSON:API document object.');
  const data = body.data;
  if (!isObject(data)) {
    throw badRequest('invalid_document', 'The document must have a data member holding one resource object.', { pointer: '/data' });
  }
  checkTypeAndId(data, resource, mode);

  const attributes = data.attributes ?? {};
  if (!isObject(attributes)) {
    throw badRequest('invalid_document', 'data.attributes must be an object.', { pointer: '/data/attributes' });
  }
  const relationships = data.relationships ?? {};
  if (!isObject(relationships)) {
    throw badRequest('invalid_document', 'data.relationships must be an object.', { pointer: '/data/relationships' });
  }

  for (const name of Object.keys(attributes)) {
    const declared = resource.attributes[name];
    if (ignoredOnInput.has(name) || (declared !== undefined && !declared.readOnly)) continue;
    throw badRequest('unknown_attribute', `Unknown attribute ${name} in ${resource.type}.`, {
      pointer: `/data/attributes/${name}`,
    });
  }
  const problems: Problem[] = [];
  const links = readRelationships(relationships, resource, problems);
  for (const [name, relationship] of Object.entries(resource.relationships)) {
    if (relationship.kind !== 'toOne' || !relationship.required) continue;
    const missing = mode.action === 'create' ? (links[name] ?? null) === null : links[name] === null;
    if (missing) problems.push({ code: 'required', detail: `Relationship ${name} must link a ${relationship.type}.`, pointer: `/data/relationships/${name}` });
  }
  const values: AttributeValues = {};
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    if (attribute.readOnly) continue;
    const pointer = `/data/attributes/${name}`;
    if (Object.hasOwn(attributes, name)) {
      const value = readValue(attribute, attributes[name], pointer, problems);
      if (value !== invalid) values[name] = value;
    } else if (mode.action === 'create') {
      if (attribute.kind === 'text' || attribute.kind === 'enum' ? attribute.required : false) {
        problems.push({ code: 'required', detail: `${name} is required.`, pointer });
      } else {
        values[name] = attribute.default;
      }
    }
  }
  if (problems.length > 0) throw new ApiError(422, problems);
  return { attributes: values, links };
}

function checkTypeAndId(data: Record<string, unknown>, resource: ResourceDeclaration, mode: Mode): void {
  if (data.type === undefined || data.type === null || data.type === '') {
    throw badRequest('invalid_document', 'data.type is required.', { pointer: '/data/type' });
  }
  if (typeof data.type !== 'string') {
    throw badRequest('invalid_document', 'data.type must be a string.', { pointer: '/data/type' });
  }
  if (data.type !== resource.type) {
    throw conflict(`data.type is ${data.type}, but this endpoint takes ${resource.type}.`, '/data/type');
  }
  const id = data.id;
  if (id !== undefined && id !== null && typeof id !== 'string') {
    throw badRequest('invalid_document', 'data.id must be a string.', { pointer: '/data/id' });
  }
  if (mode.action === 'create' && typeof id === 'string' && id !== '') {
    throw forbidden('Client-generated ids are not supported; leave data.id out and the server assigns one.');
  }
  if (mode.action === 'update' && typeof id === 'string' && id !== '' && id !== mode.id) {
    throw conflict(`data.id ${id} does not match the id ${mode.id} in the path.`, '/data/id');
  }
}

function readRelationships(
  relationships: Record<string, unknown>,
  resource: ResourceDeclaration,
  problems: Problem[],
): Record<string, string | null> {
  const links: Record<string, string | null> = {};
  for (const [name, member] of Object.entries(relationships)) {
    const pointer = `/data/relationships/${name}`;
    const declared = resource.relationships[name];
    if (declared === undefined && !unmodeledRelationships.has(name)) {
      throw badRequest('unknown_relationship', `Unknown relationship ${name} in ${resource.type}.`, { pointer });
    }
    if (!isObject(member) || !Object.hasOwn(member, 'data')) {
      throw badRequest('invalid_document', `Relationship ${name} must be an object with a data member.`, { pointer });
    }
    const linkage = member.data;
    const empty = linkage === null || (Array.isArray(linkage) && linkage.length === 0);
    if (declared === undefined) {
      if (!empty) problems.push({ code: 'not_supported', detail: `Relationship ${name} is not supported yet; send it as null.`, pointer });
    } else if (declared.kind === 'toMany') {
      if (!empty) {
        problems.push({
          code: 'not_supported',
          detail: `Relationship ${name} is changed through the ${declared.type} endpoints, not in this document.`,
          pointer,
        });
      }
    } else if (linkage === null) {
      links[name] = null;
    } else if (!isObject(linkage) || typeof linkage.id !== 'string' || linkage.id === '') {
      problems.push({ code: 'invalid_value', detail: `Relationship ${name} must link {type, id} or null.`, pointer: `${pointer}/data` });
    } else if (linkage.type !== declared.type) {
      problems.push({ code: 'invalid_value', detail: `Relationship ${name} links ${declared.type} records.`, pointer: `${pointer}/data/type` });
    } else {
      links[name] = linkage.id;
    }
  }
  return links;
}

/** Marks a value that failed its checks; the problem is already reported. */
const invalid = Symbol('invalid');

/** Checks one attribute value against its declaration. */
function readValue(
  attribute: Attribute,
  value: unknown,
  pointer: string,
  problems: Problem[],
): string | boolean | number | null | typeof invalid {
  const name = pointer.slice(pointer.lastIndexOf('/') + 1);
  const report = (code: string, detail: string): typeof invalid => {
    problems.push({ code, detail, pointer });
    return invalid;
  };
  switch (attribute.kind) {
    case 'text': {
      if (value === null) return attribute.nullable ? null : report('required', `${name} must not be null.`);
      if (typeof value !== 'string') return report('invalid_type', `${name} must be a string.`);
      if (value.includes('\u0000')) return report('invalid_value', `${name} must not contain the NUL character.`);
      if (attribute.required && value.trim() === '') return report('required', `${name} must not be empty.`);
      if (codePoints(value) > attribute.maxLength) {
        return report('too_long', `${name} is longer than ${attribute.maxLength} characters.`);
      }
      if (attribute.maxBytes !== undefined && Buffer.byteLength(value) > attribute.maxBytes) {
        return report('too_long', `${name} is longer than ${attribute.maxBytes} bytes.`);
      }
      return value;
    }
    case 'enum': {
      if (value === null) return attribute.required ? report('required', `${name} must not be null.`) : attribute.default;
      if (typeof value !== 'string') return report('invalid_type', `${name} must be a string.`);
      if (!attribute.values.includes(value)) {
        return report('invalid_value', `${name} must be one of ${attribute.values.join(', ')}.`);
      }
      return value;
    }
    case 'boolean': {
      if (value === null) return attribute.default;
      // The Terrakube UI sends booleans as strings ("true") when it soft-deletes.
      if (value === 'true' || value === 'false') return value === 'true';
      if (typeof value !== 'boolean') return report('invalid_type', `${name} must be a boolean.`);
      return value;
    }
    case 'integer': {
      if (value === null) return attribute.default;
      if (typeof value !== 'number' || !Number.isInteger(value)) return report('invalid_type', `${name} must be an integer.`);
      if (value < attribute.min || value > attribute.max) {
        return report('invalid_value', `${name} must be from ${attribute.min} to ${attribute.max}.`);
      }
      return value;
    }
    case 'timestamp':
      return invalid;
  }
}

function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

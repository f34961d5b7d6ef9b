import { ApiError, badRequest, conflict, forbidden, invalidValue, type Problem } from '../errors.js';
import type { AttributeValues, Registry, ResourceDeclaration, ToOne } from '../model/index.js';
import { assertKnownAttributes, readAttributeValues, type CreateDefaults } from './attribute-values.js';

/**
 * A record as a transport read it out of its envelope (a JSON:API resource object, a GraphQL
 * input object): the values and links it sends, not yet checked against the declaration.
 */
export interface RecordDraft {
  /** The id the input gives the record, when it gives one. */
  id?: string;
  attributes: Readonly<Record<string, unknown>>;
  relationships: Readonly<Record<string, LinkDraft>>;
}

/** A relationship as an input sets it, after the transport read its syntax. */
export type LinkDraft =
  /** Nothing linked. */
  | { kind: 'none' }
  /** One record; `type` when the transport's syntax names the record's type. */
  | { kind: 'record'; id: string; type?: unknown }
  /** A list of records (empty or not), which only a to-many relationship can hold: each one as a link is read. */
  | { kind: 'records'; members: readonly LinkDraft[] }
  /** Something the transport could not read as a link: its code and detail. */
  | { kind: 'malformed'; code: string; detail: string };

/** Reads a transport's draft when the engine is ready for it: after the record is found and the write allowed. */
export type InputReader = () => RecordDraft;

/** What a create or update sets, validated against the declaration. */
export interface RecordInput {
  /** The id a client gives a new record of a resource that takes ids from clients. */
  id?: string;
  attributes: AttributeValues;
  /** To-one relationships the input sets, by name: a related id, or null to unlink. */
  relationships: Record<string, string | null>;
  /** Many-to-many relationships the input replaces, by name: the ids they are to list. */
  members: Record<string, string[]>;
}

/**
 * The input of a write, checked against the declaration in the order decisions.md sets, the same
 * for every transport: an id the client chose for a new record (403), an unknown attribute (400)
 * or relationship (400), then every missing, mistyped or invalid value and link at once (422).
 * Read-only attributes clients echo back are ignored. An attribute that holds a link's id is
 * read as that link.
 */
export function recordInput(
  engine: { registry: Registry; createDefaults: CreateDefaults },
  resource: ResourceDeclaration,
  draft: RecordDraft,
  use: { action: 'create' } | { action: 'update'; id: string },
): RecordInput {
  const { registry } = engine;
  const { action } = use;
  if (action === 'create' && draft.id !== undefined && resource.clientIds === undefined) {
    throw forbidden('Client-generated ids are not supported; leave the id out and the server assigns one.');
  }
  const problems: Problem[] = [];
  const { id, attributes: given } = clientId(resource, draft, use, problems);
  assertKnownAttributes(registry, resource, given);
  if (action === 'create') checkClientId(resource, id, problems);
  const { links: relationships, members } = readLinks(registry, resource, draft.relationships, problems);
  for (const [name, relationship] of Object.entries(resource.relationships)) {
    if (relationship.kind !== 'toOne' || !relationship.required) continue;
    const missing = action === 'create' ? (relationships[name] ?? null) === null : relationships[name] === null;
    if (missing)
      problems.push({ code: 'required', detail: `Relationship ${name} must link a ${relationship.type}.`, at: { relationship: name } });
  }
  const attributes = readAttributeValues(resource, given, action, problems, engine.createDefaults.get(resource.type));
  if (problems.length > 0) throw new ApiError(422, problems);
  return linkAttributesAsLinks(resource, { ...(id === undefined ? {} : { id }), attributes, relationships, members });
}

/**
 * The id a client gives a record of a resource that takes ids from clients, and the attributes
 * without it. A create must give one, as the draft's id or among the attributes (Terrakube's web UI
 * sends both), matching the resource's pattern; an update may send it among the attributes as it
 * read it, and it must be the record's own. For any other resource, `id` is an attribute like any
 * other, unknown.
 */
function clientId(
  resource: ResourceDeclaration,
  draft: RecordDraft,
  use: { action: 'create' } | { action: 'update'; id: string },
  problems: Problem[],
): { id: string | undefined; attributes: Readonly<Record<string, unknown>> } {
  if (resource.clientIds === undefined || !Object.hasOwn(draft.attributes, 'id'))
    return { id: use.action === 'create' ? draft.id : undefined, attributes: draft.attributes };
  const { id: echoed, ...attributes } = draft.attributes;
  const at = { attribute: 'id' };
  if (typeof echoed !== 'string') {
    problems.push({ code: 'invalid_type', detail: 'id must be a string.', at });
    return { id: undefined, attributes };
  }
  const expected = use.action === 'update' ? use.id : draft.id;
  if (expected !== undefined && echoed !== expected)
    throw conflict(`The id among the attributes, ${echoed}, is not the record's id ${expected}.`, at);
  return { id: use.action === 'create' ? echoed : undefined, attributes };
}

/** A client's id for a new record: given, and one the resource's pattern admits. */
function checkClientId(resource: ResourceDeclaration, id: string | undefined, problems: Problem[]): void {
  const rule = resource.clientIds;
  if (rule === undefined) return;
  const at = { attribute: 'id' };
  if (id === undefined) problems.push({ code: 'required', detail: `A new ${resource.type} needs an id: ${rule.description}.`, at });
  else if (!rule.pattern.test(id)) problems.push({ code: 'invalid_value', detail: `id must be ${rule.description}.`, at });
}

/**
 * The to-one links an input sets, and the lists of its many-to-many relationships. A relationship
 * not modeled yet, or a to-many one, takes only an empty value.
 */
function readLinks(
  registry: Registry,
  resource: ResourceDeclaration,
  drafts: Readonly<Record<string, LinkDraft>>,
  problems: Problem[],
): Pick<RecordInput, 'members'> & { links: Record<string, string | null> } {
  const links: Record<string, string | null> = {};
  const members: Record<string, string[]> = {};
  for (const [name, draft] of Object.entries(drafts)) {
    const declared = registry.relationship(resource, name);
    if (declared === undefined && registry.unmodeled(name) === undefined) {
      throw badRequest('unknown_relationship', `Unknown relationship ${name} in ${resource.type}.`, { relationship: name });
    }
    const refuse = (code: string, detail: string, part?: 'linkage' | 'type') =>
      problems.push({ code, detail, at: part === undefined ? { relationship: name } : { relationship: name, part } });
    if (declared?.kind === 'manyToMany') {
      const list = readList(name, declared.type, draft, refuse);
      if (list !== undefined) members[name] = list;
      continue;
    }
    if (declared === undefined || declared.kind === 'toMany') {
      if (draft.kind === 'none' || (draft.kind === 'records' && draft.members.length === 0)) continue;
      if (declared === undefined) refuse('not_supported', `Relationship ${name} is not supported yet; send it as null.`);
      else {
        const detail = `Relationship ${name} is changed through the ${declared.type} records it lists, created, changed and deleted as records of their own, not in this ${resource.type}'s input.`;
        refuse('not_supported', detail);
      }
      continue;
    }
    const link = readLink(name, declared, draft, refuse);
    if (link !== undefined) links[name] = link;
  }
  return { links, members };
}

type Refusal = (code: string, detail: string, part?: 'linkage' | 'type') => void;

/** The ids a many-to-many relationship is to list (null: none), each named once; whether they name records is the write's to check. */
function readList(name: string, type: string, draft: LinkDraft, refuse: Refusal): string[] | undefined {
  if (draft.kind === 'none') return [];
  if (draft.kind !== 'records') {
    refuse('invalid_value', `Relationship ${name} lists ${type} records: send a list of them, [] for none.`, 'linkage');
    return undefined;
  }
  const ids = new Set<string>();
  for (const member of draft.members) {
    if (member.kind !== 'record') {
      refuse('invalid_value', `Relationship ${name} lists ${type} records, each {type, id}.`, 'linkage');
      return undefined;
    }
    if ('type' in member && member.type !== type) {
      refuse('invalid_value', `Relationship ${name} lists ${type} records.`, 'type');
      return undefined;
    }
    ids.add(member.id);
  }
  return [...ids];
}

function readLink(name: string, declared: ToOne, draft: LinkDraft, refuse: Refusal): string | null | undefined {
  switch (draft.kind) {
    case 'none':
      return null;
    case 'records':
      refuse('invalid_value', `Relationship ${name} links one ${declared.type}, not a list.`, 'linkage');
      return undefined;
    case 'malformed':
      refuse(draft.code, draft.detail, 'linkage');
      return undefined;
    case 'record':
      if ('type' in draft && draft.type !== declared.type) {
        refuse('invalid_value', `Relationship ${name} links ${declared.type} records.`, 'type');
        return undefined;
      }
      return draft.id;
  }
}

/**
 * Reads an attribute that holds a link's id (a to-one relationship's `attribute`) as a write of
 * that link, so it is checked like any link: a visible record of the same tenant. Sent beside the
 * relationship, the two must agree.
 */
function linkAttributesAsLinks(resource: ResourceDeclaration, input: RecordInput): RecordInput {
  let attributes = input.attributes;
  let relationships = input.relationships;
  for (const [name, link] of Object.entries(resource.relationships)) {
    if (link.kind !== 'toOne' || link.attribute === undefined || !Object.hasOwn(attributes, link.attribute)) continue;
    const { [link.attribute]: id, ...rest } = attributes;
    const linked = typeof id === 'string' ? id : null;
    if (Object.hasOwn(relationships, name) && relationships[name] !== linked) {
      throw invalidValue(`${link.attribute} and relationship ${name} name different records.`, { attribute: link.attribute });
    }
    attributes = rest;
    relationships = { ...relationships, [name]: linked };
  }
  return attributes === input.attributes ? input : { attributes, relationships, members: input.members };
}

import type { LinkDraft, RecordDraft } from '../engine/index.js';
import type { Registry, ResourceDeclaration } from '../model/index.js';
import type { InputRecord } from './arguments.js';

/**
 * One record of a mutation's `data` as the engine reads an input: its attributes, and the
 * relationships it sets (`vcs: {id: "..."}` links, `vcs: null` unlinks; a to-many one is a list of
 * records, which the engine takes only empty unless the relationship is many-to-many, whose list
 * it replaces). GraphQL has already checked each value's type
 * against the schema; the engine checks the rest, as for every transport.
 */
export function recordDraft(registry: Registry, resource: ResourceDeclaration, data: InputRecord): RecordDraft {
  const attributes: Record<string, unknown> = {};
  const relationships: Record<string, LinkDraft> = {};
  for (const [name, value] of Object.entries(data)) {
    if (name === 'id') continue;
    const relationship = registry.relationship(resource, name);
    if (relationship?.kind === 'toOne') relationships[name] = linkDraft(value as InputRecord | null);
    else if (relationship !== undefined) relationships[name] = listDraft(value as readonly InputRecord[] | null);
    else attributes[name] = value;
  }
  return { ...(typeof data.id === 'string' && data.id !== '' ? { id: data.id } : {}), attributes, relationships };
}

/** A to-many relationship's list: the records it would hold (GraphQL coerces a single record to a list of one). */
function listDraft(value: readonly InputRecord[] | null): LinkDraft {
  return value === null ? { kind: 'none' } : { kind: 'records', members: value.map(linkDraft) };
}

/** A to-one link names an existing record by its id; records are not created or changed through a link. */
function linkDraft(value: InputRecord | null): LinkDraft {
  if (value === null) return { kind: 'none' };
  if (Object.keys(value).some((key) => key !== 'id')) {
    return {
      kind: 'malformed',
      code: 'not_supported',
      detail: 'A link names an existing record by its id; change that record through its own field.',
    };
  }
  if (typeof value.id !== 'string' || value.id === '')
    return { kind: 'malformed', code: 'invalid_value', detail: 'A link names a record by its id, or is null.' };
  return { kind: 'record', id: value.id };
}

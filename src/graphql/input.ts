import { assertKnownAttributes, assertNoProblems, readAttributeValues, type InputMode, type RecordInput } from '../engine/input.js';
import type { Problem } from '../errors.js';
import type { Registry, ResourceDeclaration } from '../model/index.js';
import type { InputRecord } from './arguments.js';

/**
 * One record of a mutation's `data` as the engine's input: its attributes and the to-one
 * relationships it sets (`vcs: {id: "..."}` links, `vcs: null` unlinks). Checked in the order of a
 * JSON:API document: an unknown name (400), then every missing or invalid value at once (422).
 * GraphQL has already checked each value's type against the schema.
 */
export function readRecordInput(registry: Registry, resource: ResourceDeclaration, data: InputRecord, mode: InputMode): RecordInput {
  const attributes: Record<string, unknown> = {};
  const relationships: Record<string, string | null> = {};
  const problems: Problem[] = [];
  for (const [name, value] of Object.entries(data)) {
    if (name === 'id') continue;
    const relationship = registry.relationship(resource, name);
    if (relationship?.kind !== 'toOne') {
      attributes[name] = value;
    } else if (value === null) {
      relationships[name] = null;
    } else {
      const link = readLink(value as InputRecord, name, relationship.type, problems);
      if (link !== undefined) relationships[name] = link;
    }
  }
  assertKnownAttributes(registry, resource, attributes);
  for (const [name, relationship] of Object.entries(resource.relationships)) {
    if (relationship.kind !== 'toOne' || !relationship.required) continue;
    const missing = mode.action === 'create' ? (relationships[name] ?? null) === null : relationships[name] === null;
    if (missing)
      problems.push({
        code: 'required',
        detail: `Relationship ${name} must link a ${relationship.type}.`,
        at: { relationship: name },
      });
  }
  const values = readAttributeValues(resource, attributes, mode, problems);
  assertNoProblems(problems);
  return { attributes: values, relationships };
}

/** A to-one link names an existing record by its id; records are not created or changed through a link. */
function readLink(value: InputRecord, name: string, type: string, problems: Problem[]): string | undefined {
  const at = { relationship: name };
  const others = Object.keys(value).filter((key) => key !== 'id');
  if (others.length > 0) {
    problems.push({
      code: 'not_supported',
      detail: `Relationship ${name} links an existing ${type} by its id; change the ${type} itself through its own field.`,
      at,
    });
    return undefined;
  }
  if (typeof value.id !== 'string' || value.id === '') {
    problems.push({ code: 'invalid_value', detail: `Relationship ${name} must link a ${type} by its id, or be null.`, at });
    return undefined;
  }
  return value.id;
}

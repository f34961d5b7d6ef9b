import { badRequest, type Problem } from '../errors.js';
import {
  isRequired,
  type Attribute,
  type AttributeValue,
  type AttributeValues,
  type Registry,
  type ResourceDeclaration,
} from '../model/index.js';

/**
 * Refuses (400) an attribute the resource does not declare, or one it maintains itself. Read-only
 * names that clients echo back are let through, to be ignored.
 */
export function assertKnownAttributes(
  registry: Registry,
  resource: ResourceDeclaration,
  attributes: Readonly<Record<string, unknown>>,
): void {
  for (const name of Object.keys(attributes)) {
    const declared = registry.attribute(resource, name);
    if (registry.isEchoedReadOnly(name) || (declared !== undefined && !declared.readOnly)) continue;
    throw badRequest('unknown_attribute', `Unknown attribute ${name} in ${resource.type}.`, { attribute: name });
  }
}

/**
 * The writable attribute values of an input, each checked against its declaration; on create,
 * what is left out takes its default: the value an operator `chosen` for it, else the declared one.
 * Problems are collected, so one answer lists them all.
 */
export function readAttributeValues(
  resource: ResourceDeclaration,
  attributes: Readonly<Record<string, unknown>>,
  action: 'create' | 'update',
  problems: Problem[],
  chosen: Readonly<AttributeValues> = {},
): AttributeValues {
  const values: AttributeValues = {};
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    if (attribute.readOnly) continue;
    const fallback = Object.hasOwn(chosen, name) ? chosen[name] : undefined;
    if (Object.hasOwn(attributes, name)) {
      // Null asks for the default, which is the operator's where one is chosen.
      const value = attributes[name] === null && fallback !== undefined ? fallback : readValue(attribute, attributes[name], name, problems);
      if (value !== invalid) values[name] = value;
    } else if (action === 'create') {
      if (isRequired(attribute)) problems.push({ code: 'required', detail: `${name} is required.`, at: { attribute: name } });
      else values[name] = fallback ?? defaultOf(attribute);
    }
  }
  return values;
}

/** Values for attributes a create leaves out (or sends as null), by resource type: an operator's setting over a declared default. */
export type CreateDefaults = ReadonlyMap<string, Readonly<AttributeValues>>;

/**
 * Refuses, at start, an operator's default that names no writable attribute of a declared resource
 * or that its declaration would not accept from a client.
 */
export function checkCreateDefaults(registry: Registry, defaults: CreateDefaults): void {
  for (const [type, values] of defaults) {
    const resource = registry.get(type);
    if (resource === undefined) throw new Error(`a default is set for ${type}, which is not declared`);
    const problems: Problem[] = [];
    for (const name of Object.keys(values)) {
      if (resource.attributes[name]?.readOnly !== false)
        throw new Error(`a default is set for ${type}.${name}, which clients cannot write`);
    }
    readAttributeValues(resource, values, 'update', problems);
    if (problems.length > 0) throw new Error(`a default set for ${type} is invalid: ${problems.map((p) => p.detail).join(' ')}`);
  }
}

/** The value an attribute takes when a create leaves it out. */
export function defaultOf(attribute: Attribute): AttributeValue {
  return attribute.kind === 'timestamp' || attribute.kind === 'textList' ? null : attribute.default;
}

/** Marks a value that failed its checks; the problem is already reported. */
const invalid = Symbol('invalid');

/** Checks one attribute value against its declaration. */
function readValue(attribute: Attribute, value: unknown, name: string, problems: Problem[]): AttributeValue | typeof invalid {
  const report = (code: string, detail: string): typeof invalid => {
    problems.push({ code, detail, at: { attribute: name } });
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
      if (attribute.digitsAsText === true && typeof value === 'string' && /^-?[0-9]{1,10}$/.test(value))
        return readValue(attribute, Number(value), name, problems);
      if (typeof value !== 'number' || !Number.isInteger(value)) return report('invalid_type', `${name} must be an integer.`);
      if (value < attribute.min || value > attribute.max) {
        return report('invalid_value', `${name} must be from ${attribute.min} to ${attribute.max}.`);
      }
      return value;
    }
    case 'timestamp':
      return invalid;
    case 'textList': {
      if (value === null) return null;
      if (!Array.isArray(value) || !value.every((item): item is string => typeof item === 'string'))
        return report('invalid_type', `${name} must be a list of strings.`);
      if (value.length > attribute.maxItems) return report('too_long', `${name} lists more than ${attribute.maxItems} items.`);
      const bad = value.find((item) => item.includes('\u0000') || codePoints(item) > attribute.maxLength);
      if (bad !== undefined)
        return report('invalid_value', `Each item of ${name} is at most ${attribute.maxLength} characters, without the NUL character.`);
      return [...value];
    }
  }
}

function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

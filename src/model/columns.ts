import type { Attribute, AttributeValue, AttributeValues } from './attributes.js';
import type { ResourceDeclaration, Row } from './declaration.js';

const knownColumns = new Map<string, string>();

/** The column of an attribute: its name in snake case (remembered, as every read of every row asks). */
export function columnOf(attribute: string): string {
  let column = knownColumns.get(attribute);
  if (column === undefined) {
    column = attribute.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    // Only declared names reach here, so the map stays small; the bound is a guard, not a limit.
    if (knownColumns.size < 10000) knownColumns.set(attribute, column);
  }
  return column;
}

/** An attribute of a resource with its column. */
export interface AttributeField {
  name: string;
  attribute: Attribute;
  column: string;
}

const fieldsByResource = new WeakMap<ResourceDeclaration, readonly AttributeField[]>();

/** A resource's attributes with their columns, listed once per declaration for the loops over every row. */
export function attributeFields(resource: ResourceDeclaration): readonly AttributeField[] {
  let fields = fieldsByResource.get(resource);
  if (fields === undefined) {
    fields = Object.entries(resource.attributes).map(([name, attribute]) => ({ name, attribute, column: columnOf(name) }));
    fieldsByResource.set(resource, fields);
  }
  return fields;
}

/** An attribute value as a column value: booleans are stored as 0/1 on both stores. */
export function toColumn(attribute: Attribute, value: AttributeValue): unknown {
  if (attribute.kind === 'boolean') return value === true ? 1 : 0;
  if (attribute.kind === 'textList') return value === null ? null : JSON.stringify(value);
  return value;
}

/** A column value as the API's attribute value. */
export function fromColumn(attribute: Attribute, value: unknown): AttributeValue {
  if (value === null || value === undefined) return attribute.kind === 'boolean' ? false : null;
  switch (attribute.kind) {
    case 'boolean':
      return isTrue(value);
    case 'integer':
      return Number(value);
    case 'textList':
      return typeof value === 'string' ? storedList(value) : null;
    default:
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

/** A stored list: the JSON array of strings the server wrote. */
export function storedList(text: string): readonly string[] {
  const list: unknown = JSON.parse(text);
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string') : [];
}

/** A stored boolean, as either driver returns it. */
export const isTrue = (value: unknown): boolean => value === 1 || value === true || value === '1';

/** Attribute values of a write as the columns to store. */
export function toColumns(resource: ResourceDeclaration, values: AttributeValues): Row {
  const row: Row = {};
  for (const [name, value] of Object.entries(values)) {
    const attribute = resource.attributes[name];
    if (attribute !== undefined) row[columnOf(name)] = toColumn(attribute, value);
  }
  return row;
}

import type { Attribute, ResourceDeclaration } from './declaration.js';
import { columnOf } from './declaration.js';
import type { AttributeValues } from '../jsonapi/request-document.js';
import type { Row } from '../store/database.js';

/** An attribute value as a column value: booleans are stored as 0/1 on both stores. */
export function toColumn(attribute: Attribute, value: string | boolean | number | null): unknown {
  if (attribute.kind === 'boolean') return value === true ? 1 : 0;
  return value;
}

/** A column value as the API's attribute value. */
export function fromColumn(attribute: Attribute, value: unknown): string | boolean | number | null {
  if (value === null || value === undefined) return attribute.kind === 'boolean' ? false : null;
  switch (attribute.kind) {
    case 'boolean':
      return value === 1 || value === true || value === '1';
    case 'integer':
      return Number(value);
    default:
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

/** Attribute values of a write as the columns to store. */
export function toColumns(resource: ResourceDeclaration, values: AttributeValues): Row {
  const row: Row = {};
  for (const [name, value] of Object.entries(values)) {
    const attribute = resource.attributes[name];
    if (attribute !== undefined) row[columnOf(name)] = toColumn(attribute, value);
  }
  return row;
}

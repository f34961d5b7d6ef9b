import type { IncludeResult } from '../engine/include.js';
import { recordKey } from '../engine/include.js';
import { publicAttributes, type AttributeValues, type ResourceDeclaration, type Row } from '../model/index.js';

export interface Linkage {
  type: string;
  id: string;
}

export interface ResourceObject {
  type: string;
  id: string;
  attributes: AttributeValues;
  relationships: Record<string, { data: Linkage | Linkage[] | null }>;
}

/** `fields[TYPE]`: the attribute and relationship names to keep, by type. */
export type Fieldsets = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * The resource object of one record: its public attributes (a whitelist, secrets null) and its
 * relationships. To-one relationships always carry their linkage; to-many ones only when included,
 * since listing every child id of every record is what made Terrakube's lists slow.
 */
export function toResourceObject(
  resource: ResourceDeclaration,
  row: Row,
  fields: Fieldsets,
  included: IncludeResult | undefined,
): ResourceObject {
  const keep = fields.get(resource.type);
  const toMany = included?.toMany.get(recordKey(resource.type, row.id));
  const relationships: ResourceObject['relationships'] = {};
  for (const [name, relationship] of Object.entries(resource.relationships)) {
    if (keep !== undefined && !keep.has(name)) continue;
    if (relationship.kind === 'toOne') {
      const id = row[relationship.column];
      relationships[name] = { data: typeof id === 'string' ? { type: relationship.type, id } : null };
    } else {
      const ids = toMany?.[name];
      if (ids !== undefined) relationships[name] = { data: ids.map((id) => ({ type: relationship.type, id })) };
    }
  }
  return { type: resource.type, id: String(row.id), attributes: publicAttributes(resource, row, keep), relationships };
}

/** The included records that are not primary data, each once. */
export function includedObjects(included: IncludeResult, fields: Fieldsets, primary: ReadonlySet<string>): ResourceObject[] {
  const objects: ResourceObject[] = [];
  for (const [key, record] of included.included) {
    if (!primary.has(key)) objects.push(toResourceObject(record.resource, record.row, fields, included));
  }
  return objects;
}

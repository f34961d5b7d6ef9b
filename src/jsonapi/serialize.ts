import type { IncludeResult } from '../engine/index.js';
import { recordKey } from '../engine/index.js';
import {
  attributeFields,
  listsRecords,
  publicValue,
  type AttributeField,
  type AttributeValues,
  type Relationship,
  type ResourceDeclaration,
  type Row,
} from '../model/index.js';

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

/** A resource's attributes and relationships, listed once per declaration for the loop over every row of a page. */
interface ObjectPlan {
  attributes: readonly AttributeField[];
  relationships: readonly [string, Relationship][];
  hasToMany: boolean;
}

const objectPlans = new WeakMap<ResourceDeclaration, ObjectPlan>();

function objectPlan(resource: ResourceDeclaration): ObjectPlan {
  let plan = objectPlans.get(resource);
  if (plan === undefined) {
    const relationships = Object.entries(resource.relationships);
    plan = { attributes: attributeFields(resource), relationships, hasToMany: relationships.some(([, r]) => listsRecords(r)) };
    objectPlans.set(resource, plan);
  }
  return plan;
}

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
  const plan = objectPlan(resource);
  const keep = fields.get(resource.type);
  const attributes: AttributeValues = {};
  for (const field of plan.attributes) {
    if (keep === undefined || keep.has(field.name)) attributes[field.name] = publicValue(field, row);
  }
  const toMany =
    plan.hasToMany && included !== undefined && included.toMany.size > 0
      ? included.toMany.get(recordKey(resource.type, row.id))
      : undefined;
  const relationships: ResourceObject['relationships'] = {};
  for (const [name, relationship] of plan.relationships) {
    if (keep !== undefined && !keep.has(name)) continue;
    if (relationship.kind === 'toOne') {
      const id = row[relationship.column];
      relationships[name] = { data: typeof id === 'string' ? { type: relationship.type, id } : null };
    } else {
      const ids = toMany?.[name];
      if (ids === undefined) continue;
      const linkage = ids.map((id) => ({ type: relationship.type, id }));
      relationships[name] = { data: relationship.kind === 'toMany' && relationship.atMostOne === true ? (linkage[0] ?? null) : linkage };
    }
  }
  return { type: resource.type, id: String(row.id), attributes, relationships };
}

/** The included records that are not primary data, each once. */
export function includedObjects(included: IncludeResult, fields: Fieldsets, primary: ReadonlySet<string>): ResourceObject[] {
  const objects: ResourceObject[] = [];
  for (const [key, record] of included.included) {
    if (!primary.has(key)) objects.push(toResourceObject(record.resource, record.row, fields, included));
  }
  return objects;
}

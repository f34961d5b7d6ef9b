import type { ResourceDeclaration } from '../engine/declaration.js';
import { columnOf } from '../engine/declaration.js';
import { fromColumn } from '../engine/codec.js';
import { isSecretIn } from '../engine/secret-values.js';
import type { Row } from '../store/database.js';

export interface Linkage {
  type: string;
  id: string;
}

export interface ResourceObject {
  type: string;
  id: string;
  attributes: Record<string, string | boolean | number | null>;
  relationships: Record<string, { data: Linkage | Linkage[] | null }>;
}

export interface SerializeOptions {
  /** Sparse fieldset of this type, if the client asked for one. */
  fields: ReadonlySet<string> | undefined;
  /** Ids of to-many relationships that were included, by relationship name. */
  toMany: Readonly<Record<string, readonly string[]>> | undefined;
}

/**
 * The public shape of one record, built from its declaration as a whitelist: only declared
 * attributes leave the server, and a secret value always leaves as null (this is the one place
 * records become documents, so no read path can skip it). To-one relationships always carry their
 * linkage; to-many ones only when included, since listing every child id of every record is what
 * made Terrakube's lists slow.
 */
export function toResourceObject(resource: ResourceDeclaration, row: Row, options: SerializeOptions): ResourceObject {
  const keep = (name: string) => options.fields === undefined || options.fields.has(name);
  const attributes: ResourceObject['attributes'] = {};
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    if (!keep(name)) continue;
    attributes[name] = isSecretIn(attribute, row) ? null : fromColumn(attribute, row[columnOf(name)]);
  }
  const relationships: ResourceObject['relationships'] = {};
  for (const [name, relationship] of Object.entries(resource.relationships)) {
    if (!keep(name)) continue;
    if (relationship.kind === 'toOne') {
      const id = row[relationship.column];
      relationships[name] = { data: typeof id === 'string' ? { type: relationship.type, id } : null };
    } else {
      const ids = options.toMany?.[name];
      if (ids !== undefined) relationships[name] = { data: ids.map((id) => ({ type: relationship.type, id })) };
    }
  }
  return { type: resource.type, id: String(row.id), attributes, relationships };
}

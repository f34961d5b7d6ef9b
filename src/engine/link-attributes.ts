import { invalidValue } from '../errors.js';
import type { ResourceDeclaration } from '../model/index.js';
import type { RecordInput } from './input.js';

/**
 * Reads an attribute that holds a link's id (a to-one relationship's `attribute`) as a write of
 * that link, so it is checked like any link: a visible record of the same tenant. Sent beside the
 * relationship, the two must agree.
 */
export function linkAttributesAsLinks(resource: ResourceDeclaration, input: RecordInput): RecordInput {
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
  return attributes === input.attributes ? input : { attributes, relationships };
}

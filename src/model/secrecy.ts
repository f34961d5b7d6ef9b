import type { Attribute, AttributeValue, AttributeValues, TextAttribute, Secrecy } from './attributes.js';
import { attributeFields, columnOf, fromColumn, isTrue, type AttributeField } from './columns.js';
import type { ResourceDeclaration, Row } from './declaration.js';

export type SecretAttribute = TextAttribute & { secret: Secrecy };

/** Whether an attribute may hold a secret: never filtered, sorted or read back while it does. */
export function maySecret(attribute: Attribute | undefined): attribute is SecretAttribute {
  return attribute?.kind === 'text' && attribute.secret !== undefined;
}

/** Attributes whose value may be a secret, by name. */
export function secretAttributes(resource: ResourceDeclaration): [string, SecretAttribute][] {
  return Object.entries(resource.attributes).filter((entry): entry is [string, SecretAttribute] => maySecret(entry[1]));
}

/** Whether a stored record's value of `attribute` is a secret, which every read returns as null. */
export function isSecretIn(attribute: Attribute, row: Row): boolean {
  if (!maySecret(attribute)) return false;
  if ('always' in attribute.secret) return true;
  return isTrue(row[columnOf(attribute.secret.whileTrue)]);
}

/**
 * The attributes of a record as any reader may see them, built from the declaration as a
 * whitelist: only declared attributes, and a secret always as null. Every read path of every
 * transport goes through here or through `publicValue`, so none can skip it.
 */
export function publicAttributes(resource: ResourceDeclaration, row: Row, keep?: ReadonlySet<string>): AttributeValues {
  const attributes: AttributeValues = {};
  for (const field of attributeFields(resource)) {
    if (keep !== undefined && !keep.has(field.name)) continue;
    attributes[field.name] = publicValue(field, row);
  }
  return attributes;
}

/** One declared attribute of a record as any reader may see it: a secret is null. */
export function publicValue({ attribute, column }: AttributeField, row: Row): AttributeValue {
  return isSecretIn(attribute, row) ? null : fromColumn(attribute, row[column]);
}

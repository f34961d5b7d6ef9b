import { ApiError } from '../jsonapi/errors.js';
import type { AttributeValues } from '../jsonapi/request-document.js';
import { secretPlace, type SecretCipher } from '../secrets/cipher.js';
import type { Row } from '../store/database.js';
import { columnOf, maySecret, secretAttributes, type Attribute, type ResourceDeclaration } from './declaration.js';

/** Whether a stored record's value of `attribute` is a secret, which every read returns as null. */
export function isSecretIn(attribute: Attribute, row: Row): boolean {
  if (!maySecret(attribute)) return false;
  if ('always' in attribute.secret) return true;
  return isTrue(row[columnOf(attribute.secret.whileTrue)]);
}

const isTrue = (value: unknown) => value === 1 || value === true || value === '1';

/**
 * Seals the secret values of a write in place, so that only ciphertext reaches the database. A value
 * that becomes secret without being sent (`sensitive: true` on its own) is sealed from the stored
 * plain text. A secret never becomes readable again: turning its flag off is a 422.
 */
export function sealSecrets(resource: ResourceDeclaration, values: AttributeValues, current: Row | undefined, id: unknown, cipher: SecretCipher): void {
  for (const [name, attribute] of secretAttributes(resource)) {
    const column = columnOf(name);
    const seal = (plain: string) => cipher.seal(plain, secretPlace(resource.table, column, id));
    if ('always' in attribute.secret) {
      const value = values[name];
      if (typeof value === 'string') values[name] = seal(value);
      continue;
    }
    const flag = attribute.secret.whileTrue;
    const wasSecret = current !== undefined && isTrue(current[columnOf(flag)]);
    if (wasSecret && values[flag] === false) {
      throw new ApiError(422, {
        code: 'invalid_value',
        detail: `A ${flag} ${resource.type} cannot be made readable again; delete it and create it anew to change that.`,
        pointer: `/data/attributes/${flag}`,
      });
    }
    if (!(values[flag] === true || wasSecret)) continue;
    if (Object.hasOwn(values, name)) {
      const value = values[name];
      if (typeof value === 'string') values[name] = seal(value);
    } else if (current !== undefined && !wasSecret && typeof current[column] === 'string') {
      values[name] = seal(current[column]);
    }
  }
}

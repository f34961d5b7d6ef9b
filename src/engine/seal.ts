import { invalidValue } from '../errors.js';
import { columnOf, isTrue, secretAttributes, type AttributeValues, type ResourceDeclaration, type Row } from '../model/index.js';
import { isSealed, secretPlace, type SecretCipher } from '../secrets/cipher.js';
import type { Scope } from './scope.js';

/**
 * Seals the secret values of a write in place, so that only ciphertext reaches the database. A value
 * that becomes secret without being sent (`sensitive: true` on its own) is sealed from the stored
 * plain text. A secret never becomes readable again: turning its flag off is a 422.
 */
export function sealSecrets(
  resource: ResourceDeclaration,
  values: AttributeValues,
  current: Row | undefined,
  id: unknown,
  cipher: SecretCipher | undefined,
): void {
  for (const [name, attribute] of secretAttributes(resource)) {
    const column = columnOf(name);
    const seal = (plain: string) => {
      if (cipher === undefined) throw new Error('secrets written through an engine opened without the encryption key');
      return cipher.seal(plain, secretPlace(resource.table, column, id));
    };
    if ('always' in attribute.secret) {
      const value = values[name];
      if (typeof value === 'string') values[name] = seal(value);
      continue;
    }
    const flag = attribute.secret.whileTrue;
    const wasSecret = current !== undefined && isTrue(current[columnOf(flag)]);
    if (wasSecret && values[flag] === false) {
      throw invalidValue(`A ${flag} ${resource.type} cannot be made readable again; delete it and create it anew to change that.`, {
        attribute: flag,
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

/**
 * A record that lives directly in the tenant `tenantId`, with its sealed values opened: what a write
 * hook uses the linked credentials with. Undefined when the tenant holds no such record.
 */
export async function openedRecord(tx: Scope, resource: ResourceDeclaration, id: string, tenantId: string): Promise<Row | undefined> {
  const { registry, cipher } = tx.engine;
  const link = registry.parentLink(resource);
  if (link === undefined || registry.parentOf(resource) !== registry.tenant)
    throw new Error(`${resource.type} is not a record of the tenant`);
  const row = await tx.db.selectFrom(resource.table).selectAll().where('id', '=', id).where(link.column, '=', tenantId).executeTakeFirst();
  return row === undefined ? undefined : openRow(cipher, resource, row);
}

/** A stored row with its sealed values opened, for the service's own use of them (a run's variables). */
export function openRow(cipher: SecretCipher | undefined, resource: ResourceDeclaration, row: Row): Row {
  const opened: Row = { ...row };
  for (const [name] of secretAttributes(resource)) {
    const column = columnOf(name);
    const value = row[column];
    if (typeof value !== 'string' || !isSealed(value)) continue;
    if (cipher === undefined) throw new Error('secrets opened through an engine opened without the encryption key');
    opened[column] = cipher.open(value, secretPlace(resource.table, column, row.id));
  }
  return opened;
}

import { sql, type SqlBool, type Transaction } from 'kysely';
import type { Caller } from '../auth/caller.js';
import { UnitOfWork } from '../engine/unit-of-work.js';
import { columnOf, secretAttributes, type Registry } from '../model/index.js';
import type { Database, Store } from '../store/database.js';
import { isSealed, secretPlace, type SecretCipher } from './cipher.js';
import { opens, readCheck } from './encryption-key.js';

const batchSize = 500;

/** What a rotation re-sealed: how many secret values of records, and which of the service's own keys. */
export interface Resealed {
  secrets: number;
  serviceKeys: string[];
}

/**
 * Re-seals every stored secret under a new key, in one transaction with the service's sealed keys
 * (the key check, the token-signing key): either all of them move to the new key, or nothing does.
 * Run with the server stopped, by `operator` (the console's), whom the audit trail names: the
 * rotation is one change of the encryption key, its ids before and after (never a key).
 */
export async function resealSecrets(
  store: Store,
  registry: Registry,
  keys: { from: SecretCipher; to: SecretCipher },
  operator: Caller,
): Promise<Resealed> {
  const { from, to } = keys;
  if (!opens(from, await readCheck(store)))
    throw new Error(`the current key (id ${from.keyId}) does not open the secrets in this database`);
  return store.db.transaction().execute(async (trx) => {
    let count = 0;
    for (const resource of registry.all()) {
      for (const [name, attribute] of secretAttributes(resource)) {
        const column = columnOf(name);
        const sealed =
          'always' in attribute.secret
            ? sql<SqlBool>`${sql.ref(column)} is not null`
            : sql<SqlBool>`${sql.ref(column)} is not null and ${sql.ref(columnOf(attribute.secret.whileTrue))} = 1`;
        count += await resealColumn(trx, resource.table, column, sealed, from, to);
      }
    }
    // The states the Terraform backend stored, each sealed whole and bound to its history record.
    count += await resealColumn(trx, 'state_version', 'state', sql<SqlBool>`${sql.ref('state')} is not null`, from, to);
    const serviceKeys = await resealServiceKeys(trx, from, to);
    const work = new UnitOfWork(operator, { transport: 'console' });
    work.record({
      organizationId: undefined,
      type: 'encryption key',
      id: to.keyId,
      action: 'update',
      attributes: { keyId: { before: from.keyId, after: to.keyId }, resealedSecrets: { before: undefined, after: count } },
    });
    await work.flush(trx);
    return { secrets: count, serviceKeys };
  });
}

/** Every sealed row of `service_key` (the key check, the token-signing key), each bound to its row. */
async function resealServiceKeys(trx: Transaction<Database>, from: SecretCipher, to: SecretCipher): Promise<string[]> {
  const rows = await trx.selectFrom('service_key').select(['name', 'value']).orderBy('name').execute();
  const resealed: string[] = [];
  for (const row of rows) {
    const name = String(row.name);
    const value = String(row.value);
    if (!isSealed(value)) continue;
    const place = secretPlace('service_key', 'value', name);
    await trx
      .updateTable('service_key')
      .set({ value: to.seal(from.open(value, place), place) })
      .where('name', '=', name)
      .execute();
    resealed.push(name);
  }
  return resealed;
}

async function resealColumn(
  trx: Transaction<Database>,
  table: string,
  column: string,
  sealed: ReturnType<typeof sql<SqlBool>>,
  from: SecretCipher,
  to: SecretCipher,
): Promise<number> {
  let count = 0;
  let after = '';
  // Batches in id order keep memory flat however many secrets there are.
  for (;;) {
    const rows = await trx
      .selectFrom(table)
      .select(['id', column])
      .where(sealed)
      .where('id', '>', after)
      .orderBy('id')
      .limit(batchSize)
      .execute();
    for (const row of rows) {
      const place = secretPlace(table, column, row.id);
      const plain = from.open(String(row[column]), place);
      await trx
        .updateTable(table)
        .set({ [column]: to.seal(plain, place) })
        .where('id', '=', row.id)
        .execute();
      count++;
    }
    if (rows.length < batchSize) return count;
    after = String(rows.at(-1)?.id);
  }
}

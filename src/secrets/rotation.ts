import { sql, type SqlBool, type Transaction } from 'kysely';
import { columnOf, secretAttributes, type Resources } from '../engine/declaration.js';
import type { Database, Store } from '../store/database.js';
import { secretPlace, type SecretCipher } from './cipher.js';
import { opens, readCheck, sealCheck } from './encryption-key.js';

const batchSize = 500;

/**
 * Re-seals every stored secret under a new key, in one transaction with the key check: either every
 * secret and the check move to the new key, or nothing does. Run with the server stopped.
 */
export async function resealSecrets(store: Store, resources: Resources, from: SecretCipher, to: SecretCipher): Promise<number> {
  if (!opens(from, await readCheck(store))) throw new Error(`the current key (id ${from.keyId}) does not open the secrets in this database`);
  return store.db.transaction().execute(async (trx) => {
    let count = 0;
    for (const resource of resources.values()) {
      for (const [name, attribute] of secretAttributes(resource)) {
        const column = columnOf(name);
        const sealed =
          'always' in attribute.secret
            ? sql<SqlBool>`${sql.ref(column)} is not null`
            : sql<SqlBool>`${sql.ref(column)} is not null and ${sql.ref(columnOf(attribute.secret.whileTrue))} = 1`;
        count += await resealColumn(trx, resource.table, column, sealed, from, to);
      }
    }
    const check = sealCheck(to);
    await trx.updateTable('service_key').set({ value: check.value }).where('name', '=', check.name).execute();
    return count;
  });
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
      await trx.updateTable(table).set({ [column]: to.seal(plain, place) }).where('id', '=', row.id).execute();
      count++;
    }
    if (rows.length < batchSize) return count;
    after = String(rows.at(-1)?.id);
  }
}

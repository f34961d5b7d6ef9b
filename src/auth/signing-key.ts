import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { isSealed, secretPlace, type SecretCipher } from '../secrets/cipher.js';
import type { Database } from '../store/database.js';
import { makeDataFolder } from '../store/data-folder.js';

const keyFileName = 'token.key';

function generateKey(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The token signing key: STRATUM_TOKEN_KEY when set; otherwise `token.key` in the data folder for
 * the embedded store, so the CLI can read it without opening a database a server holds.
 */
export function embeddedSigningKey(config: Config): string {
  if (config.tokenKey !== undefined) return config.tokenKey;
  const file = signingKeyFile(config);
  makeDataFolder(config.dataDir);
  try {
    // Exclusive create: when a server and the CLI start together, one writes and both read it.
    fs.writeFileSync(file, `${generateKey()}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = fs.readFileSync(file, 'utf8').trim();
  if (key.length < 32) throw new Error(`${file} holds no usable key; remove it to generate a new one`);
  return key;
}

export const signingKeyFile = (config: Pick<Config, 'dataDir'>) => path.join(config.dataDir, keyFileName);

/** The embedded store's key file as it is, creating nothing: undefined when there is none. */
export function readSigningKeyFile(config: Pick<Config, 'dataDir'>): string | undefined {
  try {
    return fs.readFileSync(signingKeyFile(config), 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** What the database holds as the signing key, read without changing anything. */
export type StoredSigningKey =
  { state: 'absent' } | { state: 'plain'; key: string } | { state: 'sealed'; key: string } | { state: 'unreadable'; sealedWith: string };

export async function inspectStoredSigningKey(db: Kysely<Database>, cipher: SecretCipher): Promise<StoredSigningKey> {
  const row = await db.selectFrom('service_key').select('value').where('name', '=', signingKeyName).executeTakeFirst();
  if (row === undefined) return { state: 'absent' };
  const value = String(row.value);
  if (!isSealed(value)) return { state: 'plain', key: value };
  try {
    return { state: 'sealed', key: cipher.open(value, signingKeyPlace) };
  } catch {
    return { state: 'unreadable', sealedWith: value.split(':')[1] ?? 'unknown' };
  }
}

/** The row of `service_key` that holds the key on PostgreSQL. */
export const signingKeyName = 'token';
/** Bound to its row like every sealed value, so the sealed key copied elsewhere does not open. */
const signingKeyPlace = secretPlace('service_key', 'value', signingKeyName);

/**
 * The token signing key for PostgreSQL: STRATUM_TOKEN_KEY when set; otherwise kept in the database,
 * so every replica and the CLI share it, sealed with the encryption key, so that a dump or a read
 * replica of the database alone cannot mint tokens. The first process to start generates it.
 */
export async function databaseSigningKey(config: Config, db: Kysely<Database>, cipher: SecretCipher): Promise<string> {
  if (config.tokenKey === undefined) {
    await db
      .insertInto('service_key')
      .values({ name: signingKeyName, value: cipher.seal(generateKey(), signingKeyPlace), created_date: new Date().toISOString() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  }
  const plain = await sealPlaintextSigningKey(db, cipher);
  if (config.tokenKey !== undefined) return config.tokenKey;
  if (plain !== undefined) return plain;
  const row = await db.selectFrom('service_key').select('value').where('name', '=', signingKeyName).executeTakeFirstOrThrow();
  try {
    return cipher.open(String(row.value), signingKeyPlace);
  } catch (error) {
    throw new Error(
      `the token-signing key stored in the database does not open with the encryption key: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * Seals in place a signing key that an earlier version stored in plain text, whether or not it is
 * the key in use: tokens it signed keep verifying, and the database no longer holds it readable.
 * Returns the plain key when there was one to seal.
 */
export async function sealPlaintextSigningKey(db: Kysely<Database>, cipher: SecretCipher): Promise<string | undefined> {
  const row = await db.selectFrom('service_key').select('value').where('name', '=', signingKeyName).executeTakeFirst();
  if (row === undefined || isSealed(String(row.value))) return undefined;
  const plain = String(row.value);
  // Only while it still holds the plain key: another replica starting beside this one may have sealed it first.
  await db
    .updateTable('service_key')
    .set({ value: cipher.seal(plain, signingKeyPlace) })
    .where('name', '=', signingKeyName)
    .where('value', '=', plain)
    .execute();
  return plain;
}

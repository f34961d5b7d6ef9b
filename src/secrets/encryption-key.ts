import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Store } from '../store/database.js';
import { generateEncryptionKey, parseEncryptionKey, SecretCipher, secretPlace } from './cipher.js';
import { makeDataFolder } from '../store/data-folder.js';

const keyFileName = 'encryption.key';
/** Holds the new key while a rotation commits; see rotateEncryptionKey. */
const nextKeyFileName = 'encryption.key.next';
const checkName = 'encryption-check';
// Bound to its row like every sealed service key, so a rotation re-seals it with them.
const checkPlace = secretPlace('service_key', 'value', checkName);
const checkText = 'stratum encryption key check';

export interface EncryptionKey {
  key: Buffer;
  /** The file the key lives in, when the embedded store generated it. */
  file: string | undefined;
}

/**
 * The secret encryption key: STRATUM_ENCRYPTION_KEY when set. Without it the embedded store keeps a
 * generated key in `encryption.key` (0600) in its data folder; PostgreSQL refuses to start, since
 * the key must never live in the database it protects.
 */
export function loadEncryptionKey(config: Config): EncryptionKey {
  const found = findEncryptionKey(config);
  if (found !== undefined) return found;
  if (config.databaseUrl !== undefined) {
    throw new Error(
      'STRATUM_ENCRYPTION_KEY is required with DATABASE_URL: secrets are encrypted with a key kept outside the database (make one with `openssl rand -base64 32`)',
    );
  }
  const file = path.join(config.dataDir, keyFileName);
  makeDataFolder(config.dataDir);
  writeKeyFile(file, generateEncryptionKey(), 'wx');
  return { key: readKeyFile(file), file };
}

/** The configured key without creating one: undefined while the embedded store has generated none. */
export function findEncryptionKey(config: Config): EncryptionKey | undefined {
  if (config.encryptionKey !== undefined) return { key: parseEncryptionKey(config.encryptionKey), file: undefined };
  if (config.databaseUrl !== undefined) return undefined;
  const file = path.join(config.dataDir, keyFileName);
  return fs.existsSync(file) ? { key: readKeyFile(file), file } : undefined;
}

/**
 * The cipher of the running service, checked against the store: a check value sealed under the key
 * is kept beside the secrets, and a key that does not open it is refused at start, before it could
 * seal new secrets that no one can read together with the old ones. A store that holds sealed
 * values and no key (a backup restored without it) is refused before a new key is generated, so
 * that no key file that opens nothing lies beside them when the right one is put back.
 */
export async function openSecretCipher(config: Config, store: Store): Promise<SecretCipher> {
  const found = findEncryptionKey(config);
  if (found === undefined && config.databaseUrl === undefined) {
    const sealed = await findCheck(store);
    if (sealed !== undefined) {
      throw new Error(
        `the database in ${config.dataDir} holds secrets sealed with encryption key id ${sealedKeyId(sealed)}, but there is no ${path.join(config.dataDir, keyFileName)} and STRATUM_ENCRYPTION_KEY is unset (a backup restored without its key?): put back the encryption.key kept with that database, or set STRATUM_ENCRYPTION_KEY to it. No new key was made: it would not open them`,
      );
    }
  }
  const { key, file } = found ?? loadEncryptionKey(config);
  const cipher = new SecretCipher(key);
  await store.db
    .insertInto('service_key')
    .values({ name: checkName, value: cipher.seal(checkText, checkPlace), created_date: new Date().toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const check = await readCheck(store);
  if (opens(cipher, check)) {
    if (file !== undefined) fs.rmSync(nextKeyFile(file), { force: true });
    return cipher;
  }
  // A rotation that committed but stopped before renaming its key file: finish it.
  if (file !== undefined && fs.existsSync(nextKeyFile(file))) {
    const next = new SecretCipher(readKeyFile(nextKeyFile(file)));
    if (opens(next, check)) {
      fs.renameSync(nextKeyFile(file), file);
      return next;
    }
  }
  throw new Error(
    `the encryption key (id ${cipher.keyId}) does not open the secrets stored in this database (sealed with key id ${sealedKeyId(check)}); start with the key they were sealed with`,
  );
}

/** The stored check value, or undefined when no server has started on this database yet. */
export async function findCheck(store: Pick<Store, 'db'>): Promise<string | undefined> {
  const row = await store.db.selectFrom('service_key').select('value').where('name', '=', checkName).executeTakeFirst();
  return row === undefined ? undefined : String(row.value);
}

/** The id of the key a sealed value was sealed with. */
export const sealedKeyId = (sealed: string) => sealed.split(':')[1] ?? 'unknown';

export async function readCheck(store: Pick<Store, 'db'>): Promise<string> {
  const row = await store.db.selectFrom('service_key').select('value').where('name', '=', checkName).executeTakeFirstOrThrow();
  return String(row.value);
}

export function opens(cipher: SecretCipher, check: string): boolean {
  try {
    return cipher.open(check, checkPlace) === checkText;
  } catch {
    return false;
  }
}

export function nextKeyFile(file: string): string {
  return path.join(path.dirname(file), nextKeyFileName);
}

/** Writes a key file readable by its owner only and flushed to disk. */
export function writeKeyFile(file: string, key: string, flag: 'wx' | 'w'): void {
  let handle: number;
  try {
    handle = fs.openSync(file, flag, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  try {
    fs.writeSync(handle, `${key}\n`);
    fs.fsyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
}

function readKeyFile(file: string): Buffer {
  try {
    return parseEncryptionKey(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file} holds no usable key: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

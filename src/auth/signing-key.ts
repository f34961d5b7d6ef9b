import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../store/database.js';

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
  const file = path.join(config.dataDir, keyFileName);
  fs.mkdirSync(config.dataDir, { recursive: true });
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

/**
 * The token signing key for PostgreSQL: STRATUM_TOKEN_KEY when set; otherwise kept in the database,
 * so every replica and the CLI share it. The first process to start generates it.
 */
export async function databaseSigningKey(config: Config, db: Kysely<Database>): Promise<string> {
  if (config.tokenKey !== undefined) return config.tokenKey;
  await db
    .insertInto('service_key')
    .values({ name: 'token', value: generateKey(), created_date: new Date().toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('service_key').select('value').where('name', '=', 'token').executeTakeFirstOrThrow();
  return String(row.value);
}

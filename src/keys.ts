import type { Config } from './config.js';
import { databaseSigningKey, embeddedSigningKey } from './auth/signing-key.js';
import type { SecretCipher } from './secrets/cipher.js';
import type { Store } from './store/database.js';

/**
 * The token signing key of the configured store, shared by the server and the CLI. On PostgreSQL
 * it is sealed in the database, so reading it takes the store and its cipher.
 */
export function signingKeyFor(config: Config, database: { store: Store; cipher: SecretCipher } | undefined): Promise<string> {
  if (config.databaseUrl === undefined || database === undefined) return Promise.resolve(embeddedSigningKey(config));
  return databaseSigningKey(config, database.store.db, database.cipher);
}

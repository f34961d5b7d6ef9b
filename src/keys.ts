import type { Config } from './config.js';
import { databaseSigningKey, embeddedSigningKey } from './auth/signing-key.js';
import type { Store } from './store/database.js';

/** The token signing key of the configured store, shared by the server and the CLI. */
export function signingKeyFor(config: Config, store: Store | undefined): Promise<string> {
  if (config.databaseUrl === undefined || store === undefined) return Promise.resolve(embeddedSigningKey(config));
  return databaseSigningKey(config, store.db);
}

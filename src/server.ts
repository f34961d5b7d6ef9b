#!/usr/bin/env node
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { describeError } from './http/error-handler.js';
import { createLogger } from './log.js';
import { signingKeyFor } from './keys.js';
import { openSecretCipher } from './secrets/encryption-key.js';
import { openStore } from './store/database.js';

/** Starts the service: configuration, store and migrations, then HTTP; stops cleanly on a signal. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const store = await openStore(config);
  let cipher;
  try {
    cipher = await openSecretCipher(config, store);
  } catch (error) {
    await store.close();
    throw error;
  }
  const signingKey = await signingKeyFor(config, store);
  const app = buildApp({ config, store, signingKey, cipher, log });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    void app
      .close()
      .then(() => store.close())
      .then(() => {
        log.flush();
      })
      .finally(() => {
        process.exit(0);
      });
  };
  process.on('SIGTERM', () => {
    stop('SIGTERM');
  });
  process.on('SIGINT', () => {
    stop('SIGINT');
  });
  // A failure that escapes a request must not take the service down with it.
  process.on('unhandledRejection', (reason) => {
    log.error({ error: reason instanceof Error ? describeError(reason) : { message: 'non-error rejection' } }, 'unhandled rejection');
  });

  const address = await app.listen({ port: config.port, host: config.host });
  log.info({ address, store: store.dialect, dataDir: store.dialect === 'sqlite' ? config.dataDir : undefined }, 'listening');
}

main().catch((error: unknown) => {
  const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
  process.stderr.write(`stratum: ${message}\n`);
  process.exit(1);
});

import { loadConfig } from '../config.js';
import { buildCore } from '../core.js';
import { signingKeyFor } from '../keys.js';
import { createLogger } from '../log.js';
import { buildExecutor } from '../runs/build-executor.js';
import { openSecretCipher } from '../secrets/encryption-key.js';
import { openStore } from '../store/database.js';
import { unknownSettings } from '../setting-names.js';
import { CommandFailure } from './exit-codes.js';

/**
 * `stratum executor`: runs jobs without serving HTTP, beside servers of the same PostgreSQL store
 * (run them with STRATUM_EXECUTOR=off to leave every job to executors). Its runs reach the state
 * backend at STRATUM_PUBLIC_URL. It stops on SIGTERM or SIGINT: runs in progress are interrupted,
 * fail with the reason, and Terraform releases their state locks.
 */
export async function executor(): Promise<void> {
  const config = loadConfig();
  if (config.databaseUrl === undefined)
    throw new CommandFailure(
      'an executor of its own needs PostgreSQL (DATABASE_URL): the embedded store belongs to one process, and `stratum serve` runs its jobs',
    );
  if (config.state.publicUrl === undefined)
    throw new CommandFailure('set STRATUM_PUBLIC_URL to the URL the servers are reached at: runs keep their state there');
  const log = createLogger(config.logLevel);
  for (const warning of unknownSettings()) log.warn(warning);
  const store = await openStore(config, { warn: (message) => log.warn(message), migrated: () => undefined });
  try {
    const cipher = await openSecretCipher(config, store);
    const signingKey = await signingKeyFor(config, { store, cipher });
    const { engine, signer, jobEvents } = buildCore({ config, store, signingKey, cipher, log });
    const runner = buildExecutor({ engine, config, signer, log, apiUrl: config.state.publicUrl });
    await runner.start(jobEvents);
    log.info({ executor: runner.id, runs: config.runs.concurrent, api: config.state.publicUrl }, 'executor running jobs');
    await new Promise<void>((resolve) => {
      process.once('SIGTERM', resolve);
      process.once('SIGINT', resolve);
    });
    log.info('executor stopping: interrupting the runs in progress');
    await runner.stop();
    await jobEvents.close();
  } finally {
    await store.close();
  }
}

import { loadConfig } from '../config.js';
import { buildCore } from '../core.js';
import { signingKeyFor } from '../keys.js';
import { createLogger } from '../log.js';
import { buildExecutor, queueOverview } from '../runs/index.js';
import { runRecords, stateRecords } from '../resources/index.js';
import { openSecretCipher } from '../secrets/encryption-key.js';
import { openStore } from '../store/database.js';
import { unknownSettings } from '../setting-names.js';
import { CommandFailure } from './exit-codes.js';
import { stopSignal } from './shutdown.js';

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
    const core = buildCore({ config, store, signingKey, cipher, log });
    // Its runs' durations and failures are counted where they run: here, on a listener of its own.
    const metricsModule = config.metrics === undefined ? undefined : await import('../http/metrics.js');
    const metrics = metricsModule === undefined ? undefined : new metricsModule.Metrics(store);
    metrics?.watchQueue(queueOverview(core.engine, runRecords));
    const runner = buildExecutor({
      engine: core.engine,
      records: { run: runRecords, state: stateRecords },
      config,
      signer: core.signer,
      log,
      apiUrl: config.state.publicUrl,
      metrics,
    });
    await runner.start(core.jobEvents);
    // The job moves it commits emit events: it delivers them, and those other processes left.
    core.relay.start();
    const listener =
      metricsModule === undefined || metrics === undefined || config.metrics === undefined
        ? undefined
        : await metricsModule.serveMetrics(metrics, config.metrics, config.connections, log);
    log.info(
      { executor: runner.id, runs: config.runs.concurrent, api: config.state.publicUrl, metrics: listener && `${listener.url}/metrics` },
      `executor running up to ${config.runs.concurrent} job(s) at once; runs reach the API at ${config.state.publicUrl}`,
    );
    await stopSignal();
    log.info({ executor: runner.id }, 'executor stopping: interrupting the runs in progress');
    await runner.stop();
    await core.relay.stop();
    await core.jobEvents.close();
    await listener?.close();
    log.info({ executor: runner.id }, 'executor stopped');
  } finally {
    await store.close();
  }
}

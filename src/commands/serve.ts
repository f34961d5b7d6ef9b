import path from 'node:path';
import net, { type AddressInfo } from 'node:net';
import { buildApp } from '../app.js';
import { loadConfig, type Config } from '../config.js';
import { buildCore } from '../core.js';
import { ServiceState, type RunsReport } from '../http/routes/health.js';
import { buildExecutor, queueOverview, type Executor } from '../runs/index.js';
import { runRecords, stateRecords } from '../resources/index.js';
import { unknownSettings } from '../setting-names.js';
import { listenerUrl } from '../http/listener-url.js';
import { describeError } from '../http/plugins/error-rendering.js';
import { signingKeyFor } from '../keys.js';
import { createLogger } from '../log.js';
import type { SecretCipher } from '../secrets/cipher.js';
import { openSecretCipher } from '../secrets/encryption-key.js';
import { openStore } from '../store/database.js';
import { keepRecent } from '../store/retention.js';
import { auditRecords } from '../resources/index.js';
import { columnOf } from '../model/index.js';
import { schemaVersion } from '../store/migrate.js';
import { packageVersion } from '../version.js';
import { fingerprint } from './check-keys.js';
import { CommandFailure } from './exit-codes.js';
import { stopOnSignals, stopWhenNpmExits, type StopOrder } from './shutdown.js';

/**
 * `stratum serve`: configuration (every problem reported before the database is touched), a port
 * that cannot be had, the store and its migrations, the keys, then HTTP and the executor that runs
 * jobs, and a stop on SIGTERM or SIGINT that ends the runs in progress before it closes the listener.
 */
export async function serve(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  for (const warning of unknownSettings()) log.warn(warning);
  await probeListeners(config);
  const store = await openStore(config, {
    warn: (message) => log.warn(message),
    migrated: (applied) =>
      log.info(
        { migrations: applied, schema: schemaVersion },
        applied.length === 0
          ? `database schema up to date (${schemaVersion})`
          : `applied ${applied.length} database migration(s): ${applied.join(', ')}; the schema is now ${schemaVersion}`,
      ),
  });
  let cipher: SecretCipher;
  let signingKey: string;
  try {
    cipher = await openSecretCipher(config, store);
    signingKey = await signingKeyFor(config, { store, cipher });
  } catch (error) {
    await store.close();
    throw error;
  }
  // prom-client loads only for a server that serves metrics.
  const metricsModule = config.metrics === undefined ? undefined : await import('../http/metrics.js');
  const metrics = metricsModule === undefined ? undefined : new metricsModule.Metrics(store);
  const core = buildCore({ config, store, signingKey, cipher, log });
  metrics?.watchQueue(queueOverview(core.engine, runRecords));
  const service = new ServiceState();
  const app = buildApp({ config, store, signingKey, core, log, metrics, service });
  const order: StopOrder = { first: [], last: [] };
  stopWhenNpmExits(stopOnSignals(app, order, log, config.shutdownTimeoutMs, () => (service.stopping = true)));
  // A failure that escapes a request must not take the service down with it.
  process.on('unhandledRejection', (reason) => {
    log.error({ error: reason instanceof Error ? describeError(reason) : { message: 'non-error rejection' } }, 'unhandled rejection');
  });

  let listening: ListenerSettings = { host: config.host, port: config.port, hostName: 'HOST', portName: 'PORT' };
  try {
    await app.listen({ port: config.port, host: config.host });
    if (metricsModule !== undefined && metrics !== undefined && config.metrics !== undefined) {
      const { host, port, maxConnections } = config.metrics;
      listening = { host, port, hostName: 'STRATUM_METRICS_HOST', portName: 'STRATUM_METRICS_PORT' };
      const listener = await metricsModule.serveMetrics(metrics, config.metrics, config.connections, log);
      order.last.push({ name: 'metrics listener', close: listener.close });
      // The API's cap is what STRATUM_MAX_CONNECTIONS leaves once the metrics listener has its share.
      log.info(
        { metrics: `${listener.url}/metrics`, maxConnections, apiMaxConnections: config.connections.maxConnections },
        'metrics listening',
      );
    }
  } catch (error) {
    await app.close();
    await store.close();
    throw listenFailure(error, listening);
  }
  const bound = app.server.address() as AddressInfo;
  if (config.runs.inServer) {
    // Its runs reach the state backend through this listener, so it starts once the server listens,
    // and a stop ends it while the listener still answers them.
    let executor: Executor;
    try {
      const apiUrl = listenerUrl(bound, '127.0.0.1');
      executor = buildExecutor({
        engine: core.engine,
        records: { run: runRecords, state: stateRecords },
        config,
        signer: core.signer,
        log,
        apiUrl,
        metrics,
      });
      await executor.start(core.jobEvents);
    } catch (error) {
      await app.close();
      await store.close();
      throw error;
    }
    order.first.push({ name: 'runs', close: () => executor.stop() });
    service.runs = { jobs: 'on', executor: executor.id, concurrent: config.runs.concurrent };
  } else service.runs = { jobs: 'off', detail: 'STRATUM_EXECUTOR=off: `stratum executor` processes run the jobs' };
  // Events left by a process that died are delivered now; the relay stops once the listener has
  // closed, delivering what the last requests committed.
  core.relay.start();
  order.last.push({ name: 'outbox relay', close: () => core.relay.stop() });
  const stopPruning = keepRecent(
    store,
    {
      table: auditRecords.trail.table,
      timeColumn: columnOf(auditRecords.time),
      days: config.audit.retentionDays,
      intervalMs: config.audit.pruneIntervalMs,
    },
    {
      pruned: (rows) =>
        log.info({ rows, retentionDays: config.audit.retentionDays }, `pruned ${rows} change(s) older than the audit retention`),
      failed: (message) => log.warn(`pruning the audit trail failed: ${message}`),
    },
  );
  order.first.push({ name: 'audit retention', close: stopPruning });
  order.last.push({ name: 'store', close: () => store.close() });
  const address = listenerUrl(bound);
  const docs = `${listenerUrl(bound, 'localhost')}/api/docs`;
  const firstToken = firstTokenCommand(config);
  log.info(
    {
      address,
      version: packageVersion(),
      schema: schemaVersion,
      docs,
      openapi: `${listenerUrl(bound, 'localhost')}/api/openapi.json`,
      firstToken,
      // Tells servers that sign with different keys apart (stratum check prints the same).
      signingKey: fingerprint(signingKey),
      store: store.dialect,
      dataDir: store.dialect === 'sqlite' ? config.dataDir : undefined,
      jobs: service.runs,
    },
    `listening on ${address}; ${jobsLine(service.runs)}; API docs at ${docs}; mint a first administrator token with: ${firstToken}`,
  );
}

/** Whether this process runs jobs, for the listening line. */
function jobsLine(runs: RunsReport): string {
  return runs.jobs === 'on' ? `runs up to ${runs.concurrent} job(s) at once` : 'runs no jobs (STRATUM_EXECUTOR=off)';
}

/** The command that mints a token this server accepts, with the configuration it needs. */
function firstTokenCommand(config: Config): string {
  const command = `npx stratum token --subject you@example.com --groups ${config.adminGroup}`;
  if (config.tokenKey !== undefined) return `STRATUM_TOKEN_KEY=<this server's> ${command}`;
  if (config.databaseUrl !== undefined) return `DATABASE_URL=<this server's> STRATUM_ENCRYPTION_KEY=<this server's> ${command}`;
  return config.dataDir === path.resolve('data') ? command : `STRATUM_DATA_DIR=${config.dataDir} ${command}`;
}

/** A listener's address, and the settings that give it. */
interface ListenerSettings {
  host: string;
  port: number;
  hostName: 'HOST' | 'STRATUM_METRICS_HOST';
  portName: 'PORT' | 'STRATUM_METRICS_PORT';
}

/**
 * Binds each listener's address for a moment and lets it go, so that a port in use fails the start
 * before it makes a data folder, a database or a key. Another process may still take the port
 * before the real listen: that fails with the same message, after the store was opened.
 */
async function probeListeners(config: Config): Promise<void> {
  const listeners: ListenerSettings[] = [{ host: config.host, port: config.port, hostName: 'HOST', portName: 'PORT' }];
  if (config.metrics !== undefined)
    listeners.push({
      host: config.metrics.host,
      port: config.metrics.port,
      hostName: 'STRATUM_METRICS_HOST',
      portName: 'STRATUM_METRICS_PORT',
    });
  for (const listener of listeners) {
    // Port 0 takes whatever is free: there is nothing to find taken.
    if (listener.port === 0) continue;
    const probe = net.createServer();
    try {
      await new Promise<void>((resolve, reject) => {
        probe.once('error', reject);
        probe.listen({ host: listener.host, port: listener.port }, resolve);
      });
    } catch (error) {
      throw listenFailure(error, listener);
    } finally {
      await new Promise((resolve) => probe.close(resolve));
    }
  }
}

/** Why a listener could not open, naming the setting to change. */
function listenFailure(error: unknown, { host, port, hostName, portName }: ListenerSettings): Error {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  if (code === 'EADDRINUSE') {
    return new CommandFailure(`port ${port} on ${host} is in use by another process: stop it, or set ${portName} to a free port`);
  }
  if (code === 'EACCES')
    return new CommandFailure(`this user may not listen on port ${port}: use a port above 1023, or let a reverse proxy hold 80 and 443`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new CommandFailure(`${hostName}=${host} is not an address of this machine: set ${hostName} to one (0.0.0.0 for all)`);
  return error instanceof Error ? error : new Error(String(error));
}

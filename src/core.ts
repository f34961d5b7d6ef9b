import { allowGitDestinations } from './git/index.js';
import { ApiTokens } from './auth/api-tokens.js';
import { TokenSigner } from './auth/tokens.js';
import type { Config } from './config.js';
import { Engine } from './engine/index.js';
import { OutboxRelay } from './events/outbox-relay.js';
import type { Logger } from './log.js';
import { Notifier } from './notifications/deliveries.js';
import { JobNotifications } from './notifications/job-notifications.js';
import { Destinations } from './outbound/destinations.js';
import { liveChannelRecords, notificationRecords, recordPolicies, registry, tokenPolicies, workspaceDefaults } from './resources/index.js';
import { jobStatusDelivery, localJobEvents, postgresJobEvents, type JobEvents } from './runs/index.js';
import type { SecretCipher } from './secrets/cipher.js';
import type { Store } from './store/database.js';
import { withStatementLog } from './store/statement-log.js';

export interface CoreDependencies {
  config: Config;
  store: Store;
  signingKey: string;
  cipher: SecretCipher;
  log: Logger;
}

/** What the server and a separate executor share: the engine, and where job status changes go once committed. */
export interface Core {
  engine: Engine;
  signer: TokenSigner;
  apiTokens: ApiTokens;
  jobEvents: JobEvents;
  notifier: Notifier;
  /** Delivers the events writes emitted, from the outbox, once committed: started and stopped by the command that runs. */
  relay: OutboxRelay;
}

/**
 * The engine with the handlers of its events: a job's status change, once committed, goes from the
 * outbox to the live channel of every replica (through PostgreSQL's NOTIFY, or in process on the
 * embedded store) and to its notifications, whichever process made it: a request, or an executor.
 * At trace level, the SQL statements of the engine and of the API token records are logged.
 */
export function buildCore({ config, store: given, signingKey, cipher, log }: CoreDependencies): Core {
  const store: Store = log.isLevelEnabled('trace') ? { ...given, db: withStatementLog(given.db, log) } : given;
  const signer = new TokenSigner(signingKey, config.adminGroup);
  const apiTokens = new ApiTokens(store.db, signer, log, config.tokenMaxDays);
  const jobEvents =
    config.databaseUrl === undefined ? localJobEvents() : postgresJobEvents(config.databaseUrl, (message) => log.warn(message));
  const relay = new OutboxRelay(
    store,
    { jobStatusChanged: jobStatusDelivery(jobEvents, { deliver: (change) => jobNotifications.deliver(change) }) },
    (details, what) => log.warn(details, what),
    {
      // Delivering a job's notifications waits on each receiver for up to the outbound timeout.
      leaseMs: Math.max(30_000, 3 * config.outbound.timeoutMs),
      sweepMs: 5000,
      batchSize: 100,
      passes: 4,
      maxRetryMs: 10 * 60_000,
    },
  );
  const engine = new Engine({
    registry,
    recordPolicies,
    tokenPolicies,
    apiTokens,
    store,
    cipher,
    responseMemory: config.responseMemory,
    eventsCommitted: () => relay.kick(),
    createDefaults: new Map([workspaceDefaults(config.workspaceGlobalRemoteState)]),
  });
  const destinations = new Destinations(config.outbound.allow);
  // Git (workspace and module sources) reaches what notifications may reach, and no more.
  allowGitDestinations(destinations);
  const notifier = new Notifier(
    store.db,
    destinations,
    { timeoutMs: config.outbound.timeoutMs, maxAnswerBytes: 64 * 1024, maxRequestBytes: 256 * 1024 },
    config.outbound.deliveriesKept,
  );
  const jobNotifications = new JobNotifications(
    store.db,
    notifier,
    { ...notificationRecords, ...liveChannelRecords },
    async (organizationId, configurationId) => {
      const service = engine.asService();
      try {
        return await service.secrets(organizationId).withSecrets(notificationRecords.configuration, configurationId);
      } finally {
        service.session.close();
      }
    },
    config.outbound.uiUrl,
  );
  return { engine, signer, apiTokens, jobEvents, notifier, relay };
}

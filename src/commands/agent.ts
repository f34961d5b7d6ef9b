import { loadConfig } from '../config.js';
import { allowGitDestinations } from '../git/index.js';
import { Destinations } from '../outbound/destinations.js';
import { createLogger } from '../log.js';
import { runRecords } from '../resources/index.js';
import { AgentTokens, buildAgentExecutor, localJobEvents, UnknownPool, type AgentTokenView } from '../runs/index.js';
import { unknownSettings } from '../setting-names.js';
import { consoleAdministrator, consoleEngine } from './console-session.js';
import { openConsoleStore, requireMigrated } from './console-store.js';
import { CommandFailure } from './exit-codes.js';
import { stopSignal } from './shutdown.js';
import { columns, jsonForTerminal } from './terminal-text.js';
import { parseDuration } from './token.js';

/**
 * `stratum agent`: runs jobs for the service at STRATUM_PUBLIC_URL over its runner API, with the
 * agent token in STRATUM_AGENT_TOKEN; it holds neither the database nor any key. The jobs it takes
 * are its token's: those of the workspaces routed to its pool, or with a token of no pool, those of
 * every workspace routed to none. It stops on SIGTERM or SIGINT as `stratum executor` does.
 */
export async function agent(): Promise<void> {
  const config = loadConfig();
  const token = process.env.STRATUM_AGENT_TOKEN?.trim() ?? '';
  if (token === '')
    throw new CommandFailure('set STRATUM_AGENT_TOKEN to an agent token: `stratum agent-token create` prints one, beside a server');
  const serviceUrl = config.state.publicUrl;
  if (serviceUrl === undefined) throw new CommandFailure('set STRATUM_PUBLIC_URL to the URL the servers are reached at');
  const log = createLogger(config.logLevel);
  for (const warning of unknownSettings()) log.warn(warning);
  if (config.databaseUrl !== undefined || process.env.STRATUM_ENCRYPTION_KEY !== undefined)
    log.warn('agent: DATABASE_URL or STRATUM_ENCRYPTION_KEY is set here, and an agent reads neither: take them out of its environment');
  // Its runs' checkouts happen here: they reach what STRATUM_OUTBOUND_ALLOW lets this machine reach, as on a server.
  allowGitDestinations(new Destinations(config.outbound.allow));
  const runner = buildAgentExecutor({ config, log, serviceUrl, token });
  try {
    // No event reaches an agent: it looks for jobs every few seconds, and hears a cancel as it renews a lease.
    await runner.start(localJobEvents());
  } catch (error) {
    throw new CommandFailure(
      `the agent could not start with the service at ${serviceUrl}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  log.info(
    { executor: runner.id, runs: config.runs.concurrent, service: serviceUrl },
    `agent running up to ${config.runs.concurrent} job(s) at once for ${serviceUrl}`,
  );
  await stopSignal();
  log.info({ executor: runner.id }, 'agent stopping: interrupting the runs in progress');
  await runner.stop();
  log.info({ executor: runner.id }, 'agent stopped');
}

/** The agent tokens of the configured store, as the console's administrator. */
async function withAgentTokens<T>(access: 'shared' | 'readonly', work: (tokens: AgentTokens, by: string) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openConsoleStore(config, access);
  try {
    await requireMigrated(store, config, false);
    const administrator = consoleAdministrator(config);
    return await work(new AgentTokens(consoleEngine(config, store).work('console', administrator), runRecords), administrator.subject);
  } finally {
    await store.close();
  }
}

/** `stratum agent-token create`: prints a new agent token, alone on the last line. */
export async function createAgentToken(options: { pool?: string; description?: string; ttl: string }): Promise<void> {
  let ttlSeconds: number | undefined;
  try {
    ttlSeconds = options.ttl === 'never' ? undefined : parseDuration(options.ttl);
  } catch (error) {
    throw new CommandFailure(error instanceof Error ? error.message : String(error));
  }
  const pool = options.pool ?? null;
  const description = options.description ?? (pool === null ? 'agent of no pool' : `agent of pool ${pool}`);
  const issued = await withAgentTokens('shared', async (tokens, by) => {
    try {
      return await tokens.issue(pool, description, ttlSeconds, by);
    } catch (error) {
      if (error instanceof UnknownPool)
        throw new CommandFailure(`${error.message}: its id is an agent record's (GET /api/v1/organization/{org}/agent)`);
      throw error;
    }
  });
  process.stderr.write(
    `agent token ${issued.id} for ${pool === null ? 'the workspaces routed to no agent pool' : `agent pool ${pool}`}, ` +
      `${issued.expiresAt === null ? 'until revoked' : `expiring ${issued.expiresAt}`}; give it to \`stratum agent\` as STRATUM_AGENT_TOKEN:\n`,
  );
  process.stdout.write(`${issued.token}\n`);
}

/** `stratum agent-token list`. */
export async function listAgentTokens(options: { all?: boolean; json?: boolean }): Promise<void> {
  const views = await withAgentTokens('readonly', (tokens) => tokens.list(options.all === true));
  process.stdout.write(options.json === true ? `${jsonForTerminal(views)}\n` : table(views));
}

/** `stratum agent-token revoke ID`: agents with it are refused from their next call. */
export async function revokeAgentToken(id: string): Promise<void> {
  const found = await withAgentTokens('shared', (tokens, by) => tokens.revoke(id.trim(), by));
  if (!found) throw new CommandFailure(`there is no agent token ${id}: \`stratum agent-token list --all\` shows every one`);
  process.stdout.write(`revoked agent token ${id}\n`);
}

function table(views: readonly AgentTokenView[]): string {
  if (views.length === 0) return 'no live agent tokens (--all shows revoked and expired ones)\n';
  const now = new Date().toISOString();
  const rows = views.map((v) => [
    v.id,
    v.pool ?? '(no pool)',
    v.organizationId ?? '',
    v.revokedAt !== null ? 'revoked' : v.expiresAt !== null && v.expiresAt <= now ? 'expired' : 'live',
    v.expiresAt ?? 'never',
    v.lastUsedAt ?? 'never',
    v.description.replace(/\s+/g, ' ').slice(0, 40),
  ]);
  return columns(['ID', 'POOL', 'ORGANIZATION', 'STATE', 'EXPIRES', 'LAST USED', 'DESCRIPTION'], rows);
}

import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { inspectConfig, type Config } from '../config.js';
import { runRecords } from '../resources/index.js';
import { executorPrerequisites, sandboxPrerequisite, toolBinaries, toolVersionsInUse, versionPrerequisites } from '../runs/index.js';
import { unknownSettings } from '../setting-names.js';
import { MissingStoreError } from '../store/connection-failures.js';
import { connectStore, type Store } from '../store/database.js';
import { migrationStatus, schemaVersion } from '../store/migrate.js';
import { packageVersion } from '../version.js';
import { encryptionKeyFindings, signingKeyFindings } from './check-keys.js';
import { renderFindings, type Finding } from './findings.js';
import { storeLocation } from './console-store.js';
import { CommandFailure } from './exit-codes.js';

/**
 * `stratum check`: the configuration, the database, the keys against what the store holds, and
 * what the executor needs to run jobs (its folders, git, the tool versions workspaces name), changing nothing, so it can run beside a server or before the first one starts. Exits 1 when
 * something must be fixed; warnings alone exit 0.
 */
export async function check(): Promise<void> {
  const { config, problems } = inspectConfig();
  const findings: Finding[] = problems.map((problem) => ({ status: 'fail', subject: 'configuration', found: problem }));
  if (problems.length === 0) findings.push({ status: 'ok', subject: 'configuration', found: summary(config) });
  for (const warning of unknownSettings()) findings.push({ status: 'warn', subject: 'configuration', found: warning });
  const urlUsable = !problems.some((p) => p.startsWith('DATABASE_URL'));
  const { store, findings: storeFindings } = urlUsable ? await storeFindingsOf(config) : { store: undefined, findings: [] };
  findings.push(...storeFindings);
  try {
    const keys = await encryptionKeyFindings(config, store);
    findings.push(...keys.findings, ...(await signingKeyFindings(config, store, keys.cipher)));
    if (problems.length === 0) findings.push(...(await executorFindings(config, store)));
  } finally {
    await store?.close();
  }
  process.stdout.write(renderFindings(findings));
  const failed = findings.filter((f) => f.status === 'fail').length;
  if (failed > 0) throw new CommandFailure(`check found ${failed} problem(s) to fix (listed above)`);
}

/**
 * What this process's executor needs (the server's, unless STRATUM_EXECUTOR=off, or `stratum
 * executor`'s with the same settings): its folders and git, then the tool versions workspaces name.
 */
async function executorFindings(config: Config, store: Store | undefined): Promise<Finding[]> {
  if (!config.runs.inServer) return [{ status: 'ok', subject: 'runs', found: 'STRATUM_EXECUTOR=off: this server runs no jobs' }];
  const findings: Finding[] = executorPrerequisites({ runsDir: config.runs.runsDir, toolsDir: config.runs.toolsDir, create: false });
  findings.push(sandboxPrerequisite(config.runs.sandbox));
  if (store !== undefined)
    findings.push(...(await versionPrerequisites(toolBinaries(config), await toolVersionsInUse(store.db, runRecords.workspace))));
  return findings;
}

function summary(config: Config): string {
  const store = config.databaseUrl === undefined ? 'embedded SQLite store' : 'PostgreSQL';
  const metrics = config.metrics === undefined ? 'metrics off' : `metrics on ${config.metrics.host}:${config.metrics.port}`;
  return `${store}; HTTP on ${config.host}:${config.port}; ${metrics}; log level ${config.logLevel}; shutdown deadline ${config.shutdownTimeoutMs} ms`;
}

/**
 * Reaches the database read-only and reads its migrations. The store is returned for the key
 * checks when it holds the service's tables.
 */
async function storeFindingsOf(config: Config): Promise<{ store: Store | undefined; findings: Finding[] }> {
  const findings: Finding[] = [];
  const subject = 'database';
  if (config.databaseUrl === undefined) {
    if (!fs.existsSync(config.dataDir)) {
      findings.push({
        status: 'warn',
        subject: 'data folder',
        found: `there is no data folder ${config.dataDir}`,
        fix: 'the server creates it at its first start; if a store should be there, STRATUM_DATA_DIR points elsewhere (relative paths start at the working directory)',
      });
      return { store: undefined, findings };
    }
    const holder = runningServer(config.dataDir);
    findings.push({
      status: 'ok',
      subject: 'data folder',
      found: `${config.dataDir}${holder === undefined ? '' : `, held by a running server (pid ${holder})`}`,
    });
  }
  let store: Store;
  try {
    store = await connectStore(config, { embedded: 'readonly', create: false });
  } catch (error) {
    if (error instanceof MissingStoreError) {
      findings.push({
        status: 'warn',
        subject,
        found: error.message,
        fix: 'the server creates it at its first start (or `stratum migrate --init`)',
      });
    } else {
      findings.push({ status: 'fail', subject, found: error instanceof Error ? error.message : String(error) });
    }
    return { store: undefined, findings };
  }
  try {
    findings.push({ status: 'ok', subject, found: `${storeLocation(config)} answers (${await serverVersion(store)})` });
    const status = await migrationStatus(store.db, store.dialect);
    if (status.unknown.length > 0) {
      findings.push({
        status: 'fail',
        subject: 'migrations',
        found: `the database was migrated by a newer Stratum (${status.unknown.join(', ')}) than this one (${packageVersion()}, schema ${schemaVersion})`,
        fix: 'run that version or a later one; restore a backup taken before the upgrade to go back',
      });
    } else if (status.applied.length === 0) {
      findings.push({
        status: 'warn',
        subject: 'migrations',
        found: 'none applied: no server has started on this database yet',
        fix: 'start the server, or run `stratum migrate` first',
      });
      await store.close();
      return { store: undefined, findings };
    } else if (status.pending.length > 0) {
      findings.push({
        status: 'warn',
        subject: 'migrations',
        found: `${status.pending.length} pending: ${status.pending.join(', ')}`,
        fix: 'run `stratum migrate` before the new version starts (servers also apply them at start)',
      });
    } else {
      findings.push({ status: 'ok', subject: 'migrations', found: `all ${status.applied.length} applied` });
    }
    return { store, findings };
  } catch (error) {
    await store.close();
    findings.push({ status: 'fail', subject, found: error instanceof Error ? error.message : String(error) });
    return { store: undefined, findings };
  }
}

async function serverVersion(store: Store): Promise<string> {
  if (store.dialect === 'sqlite') {
    const { rows } = await sql<{ v: string }>`select sqlite_version() as v`.execute(store.db);
    return `SQLite ${rows[0]?.v ?? 'unknown'}`;
  }
  const { rows } = await sql<{ v: string }>`select current_setting('server_version') as v`.execute(store.db);
  const version = rows[0]?.v ?? 'unknown';
  const major = Number.parseInt(version, 10);
  return `PostgreSQL ${version}${major < 15 ? '; Stratum needs 15 or later' : ''}`;
}

/** The pid of the server holding the data folder, when its pid file names a live process. */
function runningServer(dataDir: string): string | undefined {
  try {
    const pid = fs.readFileSync(path.join(dataDir, 'stratum.pid'), 'utf8').trim();
    if (!/^[1-9]\d*$/.test(pid)) return undefined;
    process.kill(Number(pid), 0);
    return pid;
  } catch {
    return undefined;
  }
}

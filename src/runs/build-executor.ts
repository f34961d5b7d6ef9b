import { mintStateCredential, type TokenSigner } from '../auth/tokens.js';
import type { Config } from '../config.js';
import type { Engine } from '../engine/index.js';
import type { Logger } from '../log.js';
import type { StateRecords } from '../model/index.js';
import { Executor, executorAliveMs } from './executor.js';
import { Jobs } from './jobs.js';
import { RunOverview, type QueueOverview } from './run-overview.js';
import type { RunRecords } from './run-records.js';
import { throughJson, type RunnerPort } from './runner-port.js';
import { httpRunnerPort } from './runner-client.js';
import type { RunMetrics } from './run-report.js';
import { executorPrerequisites, UnfitExecutor, versionPrerequisites, type Prerequisite } from './prerequisites.js';
import { nextFireTime } from '../quartz/schedule.js';
import { findIsolation, SandboxUnavailable } from './step-sandbox.js';
import { ToolBinaries } from './tool-binaries.js';

/** The records runs read and change, and those every state becomes. */
export interface RunPlaceRecords {
  run: RunRecords;
  state: StateRecords;
}

/** What an executor is made of besides the store: where steps reach the API, and who signs their state credentials. */
export interface ExecutorPlace {
  engine: Engine;
  records: RunPlaceRecords;
  config: Config;
  signer: TokenSigner;
  log: Logger;
  /** The URL run processes reach the API at; the public URL, when set, is where clients read logs. */
  apiUrl: string;
  /** Where its runs are counted, when this process serves metrics. */
  metrics?: RunMetrics | undefined;
}

const platformArch: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' };

/** How the store's queue looks, for the metrics of any process of it (whether or not it runs jobs). */
export function queueOverview(engine: Engine, records: RunRecords): () => Promise<QueueOverview> {
  const overview = new RunOverview(engine.work('executor'), records);
  return () => overview.overview(executorAliveMs);
}

/** The Terraform and OpenTofu binaries of this process's settings: in the tools folder, or downloaded there. */
export function toolBinaries(config: Config): ToolBinaries {
  return new ToolBinaries({
    directory: config.runs.toolsDir,
    releases: { terraform: config.releases.terraformUrl, tofu: config.releases.tofuUrl },
    timeoutMs: 120_000,
    maxBytes: 512 * 1024 * 1024,
    platform: { os: process.platform, arch: platformArch[process.arch] ?? process.arch },
  });
}

/**
 * An executor of this process's settings: in the server, or on its own (`stratum executor`), with
 * the store at hand. It speaks to the Jobs service in JSON alone, as an agent on another machine does.
 */
export function buildExecutor({ engine, records, config, signer, log, apiUrl, metrics }: ExecutorPlace): Executor {
  const publicUrl = config.state.publicUrl ?? apiUrl;
  const jobs = buildJobs({ engine, records, config, signer }, () => publicUrl);
  // One process of the embedded store: a job held by another executor was this process's before it stopped.
  return executorOver(throughJson(jobs), { config, log, apiUrl, publicUrl, metrics, alone: config.databaseUrl === undefined });
}

/**
 * An agent's executor (`stratum agent`): the runner port over HTTP to the service at `serviceUrl`
 * with an agent token; no store, no keys. Its runs reach the state backend at the same URL.
 */
export function buildAgentExecutor({
  config,
  log,
  serviceUrl,
  token,
}: {
  config: Config;
  log: Logger;
  serviceUrl: string;
  token: string;
}): Executor {
  return executorOver(httpRunnerPort(serviceUrl, token), { config, log, apiUrl: serviceUrl, publicUrl: serviceUrl, alone: false });
}

interface ExecutorSetting {
  config: Config;
  log: Logger;
  apiUrl: string;
  publicUrl: string;
  metrics?: RunMetrics | undefined;
  alone: boolean;
}

/**
 * An executor over `port`. Its prerequisites are checked first: one that fails (a runs folder it
 * cannot write, no `git`) fails the start with the fix; one that only some jobs need is logged as a
 * warning; so is whether its runs are isolated.
 */
function executorOver(port: RunnerPort, { config, log, apiUrl, publicUrl, metrics, alone }: ExecutorSetting): Executor {
  const { runs } = config;
  const tools = toolBinaries(config);
  const prerequisites = executorPrerequisites({ runsDir: runs.runsDir, toolsDir: runs.toolsDir, create: true });
  const failed = prerequisites.filter((p) => p.status === 'fail');
  if (failed.length > 0) throw new UnfitExecutor(failed);
  const warn = (found: Prerequisite[]) => {
    for (const warning of found.filter((p) => p.status === 'warn'))
      log.warn({ prerequisite: warning.subject, fix: warning.fix }, `executor: ${warning.subject}: ${warning.found}`);
  };
  warn(prerequisites);
  const isolation = findIsolation(runs.sandbox);
  if (isolation instanceof SandboxUnavailable)
    log.error(
      { reason: isolation.reason },
      `executor: runs cannot be isolated here, so every job this process takes fails: ${isolation.reason}`,
    );
  else if (runs.sandbox.isolation === 'none')
    log.warn(
      { isolation: 'none' },
      "executor: STRATUM_RUN_ISOLATION=none: runs are NOT isolated: a run can read this process's keys, its data folder and environment, and with them every organization's secrets",
    );
  else {
    const described = isolation.describe();
    log.info({ isolation: described }, `executor: each step runs in a sandbox: ${described}`);
  }
  // Release lists may be slow to reach: the start does not wait for them.
  void port
    .versionsInUse()
    .then((versions) => versionPrerequisites(tools, versions))
    .then(warn, (error: unknown) => log.warn({ err: error }, 'executor: the tool versions in use could not be checked'));
  return new Executor(
    {
      port,
      tools,
      isolation,
      settings: {
        directory: runs.runsDir,
        apiUrl,
        publicUrl,
        stepTimeoutMs: runs.stepTimeoutMs,
        graceMs: runs.graceMs,
        outputLimit: runs.logCharacters,
        cliConfig: runs.cliConfig,
      },
    },
    { runs: runs.concurrent, pollMs: 2000, leaseMs: 30_000, alone },
    log,
    metrics,
  );
}

/** What the Jobs service is made of: the store's work, and who signs a run's state credential. */
export type JobsPlace = Pick<ExecutorPlace, 'engine' | 'records' | 'config' | 'signer'>;

/**
 * The Jobs service of this process's settings: behind the in-process executor, and behind the
 * runner API that agents reach over HTTP. `stateUrl` is where the state versions it keeps are read
 * (the public URL, else this process's listener).
 */
export function buildJobs({ engine, records, config, signer }: JobsPlace, stateUrl: () => string): Jobs {
  const { runs } = config;
  return new Jobs({
    work: { executor: engine.work('executor'), scheduler: engine.work('scheduler') },
    records: records.run,
    next: nextFireTime,
    scheduleMinIntervalMs: runs.scheduleMinIntervalMs,
    // As long as a step may run, its grace periods and a minute more: a credential is not revocable, so no longer.
    stateCredential: ({ organizationId, workspaceId, jobId }) =>
      mintStateCredential(
        signer,
        { organizationId, workspaceId, jobReference: jobId },
        Math.ceil((runs.stepTimeoutMs + 2 * runs.graceMs) / 1000) + 60,
      ),
    keepState: async ({ organizationId, workspaceId, jobId }, text) => {
      const { session } = engine.asService();
      try {
        const access = { kind: 'credential', organizationId, workspaceId, jobReference: jobId } as const;
        const state = session.state(records.state, { organizationId, workspaceId }, access);
        const place = `${stateUrl()}/tfstate/v1/organization/${organizationId}/workspace/${workspaceId}`;
        return await state.keep(text, (historyId) => `${place}/state/${historyId}.json`);
      } finally {
        session.close();
      }
    },
  });
}

import path from 'node:path';

/** How this process runs jobs: whether it does, how many at once, with what limits and tools. */
export interface RunConfig {
  /** Whether the server process runs jobs itself; off when `stratum executor` processes do. */
  inServer: boolean;
  /** The most jobs one process runs at once. */
  concurrent: number;
  stepTimeoutMs: number;
  /** How long an interrupted step has to finish before the next, harder, stop. */
  graceMs: number;
  /** Terraform and OpenTofu versions, at `<toolsDir>/<tool>/<version>/<tool>`; steps' folders live beside them. */
  toolsDir: string;
  /** Where steps check out their repositories, each in a folder of its own removed afterwards. */
  runsDir: string;
  /** The most characters of one step's log kept. */
  logCharacters: number;
  /** A Terraform CLI configuration file every run uses (provider mirrors); undefined: none. */
  cliConfig: string | undefined;
  /** The least time between two jobs a schedule makes, whatever its cron says: a cron of every second cannot flood the queue. */
  scheduleMinIntervalMs: number;
}

type IntegerSetting = (name: string, fallback: number, min: number, max: number) => number;

/** The run settings from the environment; problems are added to the list the service refuses to start with. */
export function readRunConfig(env: NodeJS.ProcessEnv, dataDir: string, integer: IntegerSetting, problems: string[]): RunConfig {
  const switchValue = (env.STRATUM_EXECUTOR ?? '').trim();
  if (!['', 'on', 'off'].includes(switchValue)) problems.push(`STRATUM_EXECUTOR must be on or off, got "${switchValue}"`);
  const cliConfig = env.STRATUM_TERRAFORM_CLI_CONFIG?.trim();
  if (cliConfig !== undefined && cliConfig !== '' && !path.isAbsolute(cliConfig))
    problems.push(`STRATUM_TERRAFORM_CLI_CONFIG must be an absolute path, got "${cliConfig}"`);
  const toolsDir = path.resolve(env.STRATUM_TOOLS_DIR?.trim() || path.join(dataDir, 'tools'));
  return {
    inServer: switchValue !== 'off',
    concurrent: integer('STRATUM_EXECUTOR_RUNS', 2, 1, 64),
    stepTimeoutMs: integer('STRATUM_STEP_TIMEOUT_MINUTES', 120, 1, 24 * 60) * 60_000,
    graceMs: integer('STRATUM_STEP_GRACE_SECONDS', 30, 1, 600) * 1000,
    toolsDir,
    runsDir: path.join(dataDir, 'runs'),
    logCharacters: integer('STRATUM_STEP_LOG_KIB', 1024, 16, 64 * 1024) * 1024,
    cliConfig: cliConfig === undefined || cliConfig === '' ? undefined : cliConfig,
    scheduleMinIntervalMs: integer('STRATUM_SCHEDULE_MIN_INTERVAL_SECONDS', 60, 1, 24 * 3600) * 1000,
  };
}

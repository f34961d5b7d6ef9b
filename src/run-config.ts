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
  sandbox: SandboxSettings;
}

/** How every process of a step is isolated from the service, from other steps and from the machine. */
export interface SandboxSettings {
  /**
   * `bubblewrap`: each process of a step in a sandbox of its own (runs/step-sandbox.ts); `none`: an
   * operator's explicit acceptance that runs have this process's rights (its keys, its data folder).
   */
  isolation: 'bubblewrap' | 'none';
  /** The user and group steps run as when this process runs as root: ids of no one else's. */
  runUser: { uid: number; gid: number };
  /** Limits of each process of a step: memory (its data segment), processes of the run user, file size, open files. */
  limits: { memoryBytes: number; processes: number; fileBytes: number; openFiles: number };
  /** The size of the step's own /tmp, held in memory. */
  tmpBytes: number;
  /** Folders every step may read besides the system's programs and libraries (a provider mirror, a tool kept elsewhere). */
  readOnly: readonly string[];
}

/** Reads an integer setting within its bounds, noting a bad value among the start's problems. */
export type IntegerSetting = (name: string, fallback: number, min: number, max: number) => number;

/** The run settings from the environment; problems are added to the list the service refuses to start with. */
export function readRunConfig(env: NodeJS.ProcessEnv, dataDir: string, integer: IntegerSetting, problems: string[]): RunConfig {
  const switchValue = (env.STRATUM_EXECUTOR ?? '').trim();
  if (!['', 'on', 'off'].includes(switchValue)) problems.push(`STRATUM_EXECUTOR must be on or off, got "${switchValue}"`);
  const cliConfig = env.STRATUM_TERRAFORM_CLI_CONFIG?.trim();
  if (cliConfig !== undefined && cliConfig !== '' && !path.isAbsolute(cliConfig))
    problems.push(`STRATUM_TERRAFORM_CLI_CONFIG must be an absolute path, got "${cliConfig}"`);
  const isolation = (env.STRATUM_RUN_ISOLATION ?? '').trim() || 'bubblewrap';
  if (isolation !== 'bubblewrap' && isolation !== 'none')
    problems.push(`STRATUM_RUN_ISOLATION must be bubblewrap or none, got "${isolation}"`);
  const readOnly = (env.STRATUM_RUN_READ_ONLY ?? '')
    .split(':')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of readOnly)
    if (!path.isAbsolute(entry)) problems.push(`STRATUM_RUN_READ_ONLY lists absolute paths separated by ':', got "${entry}"`);
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
    sandbox: {
      isolation: isolation === 'none' ? 'none' : 'bubblewrap',
      runUser: readRunUser(env.STRATUM_RUN_USER, problems),
      limits: {
        memoryBytes: integer('STRATUM_RUN_MEMORY_MIB', 4096, 64, 1024 * 1024) * mebibyte,
        processes: integer('STRATUM_RUN_PROCESSES', 2048, 16, 1_000_000),
        fileBytes: integer('STRATUM_RUN_FILE_MIB', 4096, 1, 1024 * 1024) * mebibyte,
        openFiles: integer('STRATUM_RUN_OPEN_FILES', 4096, 64, 1_048_576),
      },
      tmpBytes: integer('STRATUM_RUN_TMP_MIB', 256, 1, 64 * 1024) * mebibyte,
      readOnly: readOnly.map((entry) => path.resolve(entry)),
    },
  };
}

const mebibyte = 1024 * 1024;

/**
 * `uid` or `uid:gid`, numbers: the user steps run as when the service runs as root. 61000 by
 * default: outside the ranges Debian gives its packages' users (60000-64999 holds a few) and
 * systemd its dynamic ones (61184-65519), and inside the 65536 ids a user-namespaced container maps.
 */
function readRunUser(raw: string | undefined, problems: string[]): { uid: number; gid: number } {
  const text = raw?.trim() ?? '';
  if (text === '') return { uid: 61000, gid: 61000 };
  const match = /^(\d{1,10})(?::(\d{1,10}))?$/.exec(text);
  const uid = Number(match?.[1]);
  const gid = match?.[2] === undefined ? uid : Number(match[2]);
  if (match === null || uid === 0 || gid === 0 || uid > 4_294_967_294 || gid > 4_294_967_294) {
    problems.push(`STRATUM_RUN_USER must be a user id, or uid:gid, other than root's 0, got "${text}"`);
    return { uid: 61000, gid: 61000 };
  }
  return { uid, gid };
}

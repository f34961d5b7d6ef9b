/**
 * Every STRATUM_ setting the service and its commands read. A name outside it is most likely a
 * misspelling that would otherwise be ignored without a word (STRATUM_METRIC_PORT for
 * STRATUM_METRICS_PORT), so it is warned about at start and by `stratum check`.
 */
export const settingNames: readonly string[] = [
  'STRATUM_DATA_DIR',
  'STRATUM_DATABASE_POOL_SIZE',
  'STRATUM_DATABASE_POOL_WAIT_MS',
  'STRATUM_STATEMENT_TIMEOUT_MS',
  'STRATUM_SQLITE_ANALYZE_INTERVAL_MS',
  'STRATUM_ENCRYPTION_KEY',
  'STRATUM_NEW_ENCRYPTION_KEY',
  'STRATUM_TOKEN_KEY',
  'STRATUM_AGENT_TOKEN',
  'STRATUM_ADMIN_GROUP',
  'STRATUM_OIDC_ISSUER',
  'STRATUM_OIDC_AUDIENCE',
  'STRATUM_OIDC_GROUPS_CLAIM',
  'STRATUM_PERSONAL_TOKEN_MAX_DAYS',
  'STRATUM_TEAM_TOKEN_MAX_DAYS',
  'STRATUM_WORKSPACE_GLOBAL_REMOTE_STATE',
  'STRATUM_LOG_LEVEL',
  'STRATUM_CORS_ORIGINS',
  'STRATUM_RESPONSE_MAX_MIB',
  'STRATUM_RESPONSE_MEMORY_MIB',
  'STRATUM_REQUEST_TIMEOUT_MS',
  'STRATUM_HEADERS_TIMEOUT_MS',
  'STRATUM_KEEP_ALIVE_TIMEOUT_MS',
  'STRATUM_CONNECTION_TIMEOUT_MS',
  'STRATUM_MAX_CONNECTIONS',
  'STRATUM_SHUTDOWN_TIMEOUT_MS',
  'STRATUM_METRICS_PORT',
  'STRATUM_METRICS_HOST',
  'STRATUM_TERRAFORM_RELEASES_URL',
  'STRATUM_TOFU_RELEASES_URL',
  'STRATUM_RELEASES_CACHE_SECONDS',
  'STRATUM_RELEASES_TIMEOUT_MS',
  'STRATUM_OUTBOUND_ALLOW',
  'STRATUM_OUTBOUND_TIMEOUT_MS',
  'STRATUM_UI_URL',
  'STRATUM_NOTIFICATION_DELIVERIES_KEPT',
  'STRATUM_MODULE_LINK_SECONDS',
  'STRATUM_STATE_MAX_MIB',
  'STRATUM_PUBLIC_URL',
  'STRATUM_EXECUTOR',
  'STRATUM_EXECUTOR_RUNS',
  'STRATUM_STEP_TIMEOUT_MINUTES',
  'STRATUM_STEP_GRACE_SECONDS',
  'STRATUM_SCHEDULE_MIN_INTERVAL_SECONDS',
  'STRATUM_STEP_LOG_KIB',
  'STRATUM_TOOLS_DIR',
  'STRATUM_TERRAFORM_CLI_CONFIG',
  'STRATUM_LONG_CONNECTIONS_PER_CALLER',
  'STRATUM_RATE_LIMIT_READS',
  'STRATUM_RATE_LIMIT_WRITES',
  'STRATUM_RUN_ISOLATION',
  'STRATUM_RUN_USER',
  'STRATUM_RUN_MEMORY_MIB',
  'STRATUM_RUN_PROCESSES',
  'STRATUM_RUN_FILE_MIB',
  'STRATUM_RUN_OPEN_FILES',
  'STRATUM_RUN_TMP_MIB',
  'STRATUM_RUN_READ_ONLY',
  'STRATUM_AUDIT_RETENTION_DAYS',
  'STRATUM_AUDIT_PRUNE_INTERVAL_MS',
  'STRATUM_TRUST_PROXY',
];

/** Prefixes of the variables the project's own tests, fuzzing and benchmarks read, not the service. */
const projectScriptPrefixes = ['STRATUM_TEST_', 'STRATUM_FUZZ_', 'STRATUM_BENCH_'];

/** A warning for each STRATUM_ variable that is no setting, naming the setting it most resembles. */
export function unknownSettings(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = new Set(settingNames);
  return Object.keys(env)
    .filter((name) => name.startsWith('STRATUM_') && !known.has(name) && !projectScriptPrefixes.some((prefix) => name.startsWith(prefix)))
    .sort()
    .map((name) => {
      const nearest = nearestSetting(name);
      return nearest === undefined
        ? `${name} is not a setting of Stratum and is ignored (the settings are listed in the README's configuration table)`
        : `${name} is not a setting of Stratum and is ignored: did you mean ${nearest}?`;
    });
}

/** The known setting closest to a name in edits, when it is close enough to be a misspelling of it. */
function nearestSetting(name: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of settingNames) {
    const distance = editDistance(name.slice('STRATUM_'.length), candidate.slice('STRATUM_'.length));
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  const suffixLength = name.length - 'STRATUM_'.length;
  return best !== undefined && best.distance <= Math.max(2, Math.floor(suffixLength / 3)) ? best.name : undefined;
}

/** Levenshtein distance: insertions, deletions and substitutions, each counting one. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

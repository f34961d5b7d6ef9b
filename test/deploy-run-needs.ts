import path from 'node:path';
import type { Config } from '../src/config.ts';

/**
 * What every deployment in deploy/ must give the jobs its service runs, read from the settings the
 * service itself derives (`inspectConfig`), so that the manifests' tests check what the service
 * would do with their environment rather than a copy of its defaults.
 */

/**
 * How long the executor waits for interrupted runs past their two grace periods: what a tool writes
 * once it ended, its errored state stored and its lock released (`Executor.stop`'s `settleMs`).
 */
const settleSeconds = 15;

/**
 * The longest a stop can take from SIGTERM to exit: the runs in progress interrupted (SIGINT, again
 * after STRATUM_STEP_GRACE_SECONDS, a kill after as long again, and the settling), then the
 * requests in flight given STRATUM_SHUTDOWN_TIMEOUT_MS. A process manager that kills before then can
 * lose the state of an apply in progress.
 */
export function stopSeconds(config: Config): number {
  return (2 * config.runs.graceMs) / 1000 + settleSeconds + config.shutdownTimeoutMs / 1000;
}

/** The environment the image gives its process: the ENV instructions of the Containerfile's last stage. */
export function imageEnvironment(containerfile: string): Record<string, string> {
  const lastStage = containerfile.slice(containerfile.lastIndexOf('\nFROM '));
  const instructions = lastStage.replace(/\\\n/g, ' ').split('\n');
  const environment: Record<string, string> = {};
  for (const line of instructions.filter((l) => l.startsWith('ENV '))) {
    for (const [, name, value] of line.slice(4).matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(\S*)/g))
      if (name !== undefined) environment[name] = value ?? '';
  }
  return environment;
}

/** The mount, of those given, that holds a folder: the deepest one at it or above it. */
export function mountHolding<Mount extends { path: string }>(mounts: readonly Mount[], folder: string): Mount | undefined {
  const holding = mounts.filter((m) => {
    const relative = path.posix.relative(m.path, folder);
    return relative === '' || (!relative.startsWith('..') && !path.posix.isAbsolute(relative));
  });
  return holding.sort((a, b) => b.path.length - a.path.length)[0];
}

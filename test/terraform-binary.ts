/**
 * The Terraform binary the tests of runs use: the one STRATUM_TEST_TERRAFORM names, else
 * `terraform` found on PATH, else the stand-in (test/stand-in/terraform, which models the
 * contract Stratum relies on). Its version is read once, from `version -json` as an operator's
 * tooling would: a workspace names that version and the tools folder keeps the binary under it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const standIn = path.join(path.dirname(fileURLToPath(import.meta.url)), 'stand-in', 'terraform');

/** The first executable `name` in the PATH's folders, as a shell finds it. */
function onPath(name: string): string | undefined {
  for (const folder of (process.env.PATH ?? '').split(path.delimiter)) {
    if (folder === '') continue;
    const candidate = path.resolve(folder, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // Not there, or not executable: the next folder may have it.
    }
  }
  return undefined;
}

const named = process.env.STRATUM_TEST_TERRAFORM;
/** An absolute path: the runs' processes get a PATH of their own, which need not hold it. */
export const binary = named !== undefined && named !== '' ? path.resolve(named) : (onPath('terraform') ?? standIn);
/** Compared by where they lead, so that a STRATUM_TEST_TERRAFORM naming the stand-in counts as the stand-in. */
export const isStandIn = fs.realpathSync(binary) === fs.realpathSync(standIn);
/** What suite titles say ran. */
export const binaryName = isStandIn ? 'stand-in' : binary;

/**
 * The controlled environment a test gives the binary, as an executor does: nothing of the caller's
 * (no credentials, no CLI configuration but the one STRATUM_TEST_TERRAFORM_CLI_CONFIG names, for a
 * configuration that needs providers found offline), node reachable for the stand-in, and no
 * update check.
 */
export function toolEnvironment(home: string): Record<string, string> {
  const cliConfig = process.env.STRATUM_TEST_TERRAFORM_CLI_CONFIG;
  return {
    PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: home,
    CHECKPOINT_DISABLE: '1',
    TF_IN_AUTOMATION: '1',
    ...(cliConfig === undefined || cliConfig === '' ? {} : { TF_CLI_CONFIG_FILE: cliConfig }),
  };
}

function readVersion(): string {
  // Its warnings (a CLI configuration it cannot read) are the runs' business, not this read's.
  const printed = execFileSync(binary, ['version', '-json'], {
    env: toolEnvironment(os.tmpdir()),
    encoding: 'utf8',
    timeout: 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const version = (JSON.parse(printed) as { terraform_version?: unknown }).terraform_version;
  if (typeof version !== 'string') throw new Error(`${binary} version -json names no terraform_version: ${printed}`);
  return version;
}

/** The binary's own version, e.g. `1.11.4` (the stand-in's is marked `-standin`). */
export const terraformVersion = readVersion();

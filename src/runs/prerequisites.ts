import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SandboxSettings } from '../run-config.js';
import { findIsolation, SandboxUnavailable } from './step-sandbox.js';
import type { ToolBinaries, ToolKind } from './tool-binaries.js';

/** One prerequisite of an executor, as `stratum check` prints it and a start logs it: a failure stops the start. */
export interface Prerequisite {
  status: 'ok' | 'warn' | 'fail';
  subject: string;
  found: string;
  fix?: string;
}

/** A tool version some workspaces run, and how many. */
export interface VersionInUse {
  kind: ToolKind;
  version: string;
  workspaces: number;
}

export interface PrerequisitePlaces {
  /** Where steps get their folders. */
  runsDir: string;
  toolsDir: string;
  /** Whether it may create the folders (a start) or must only look (`stratum check`, beside a running server). */
  create: boolean;
}

/** What makes a process that cannot run jobs say so, rather than leave every job pending. */
const offFix = 'or set STRATUM_EXECUTOR=off on this process and run jobs elsewhere (`stratum executor`, PostgreSQL)';

/**
 * What an executor needs before it takes a job: a runs folder it can write (checkouts, variables,
 * plans), `git` to check repositories out, and a tools folder. The first two fail a start; a tools
 * folder it cannot write only stops downloads, so it warns.
 */
export function executorPrerequisites(places: PrerequisitePlaces): Prerequisite[] {
  const found: Prerequisite[] = [writable('runs folder', places.runsDir, places.create)];
  found.push(gitCommand());
  const tools = writable('tools folder', places.toolsDir, places.create);
  if (tools.status === 'fail') {
    // A tools folder the operator filled and made read-only is a choice: versions there still run.
    tools.status = 'warn';
    tools.fix = `downloads of a missing version cannot be stored: put each version at ${path.join(places.toolsDir, '<tool>', '<version>', '<tool>')}, or make the folder writable`;
  }
  found.push(tools);
  return found;
}

/**
 * Whether steps can run in their sandbox here (proven by making one): without it every job fails,
 * so it must be fixed; an operator's STRATUM_RUN_ISOLATION=none is a warning that stays.
 */
export function sandboxPrerequisite(settings: SandboxSettings): Prerequisite {
  const isolation = findIsolation(settings);
  if (isolation instanceof SandboxUnavailable) return { status: 'fail', subject: 'run isolation', found: isolation.reason };
  if (settings.isolation === 'none')
    return {
      status: 'warn',
      subject: 'run isolation',
      found: "STRATUM_RUN_ISOLATION=none: a run can read this process's keys, data folder and environment",
      fix: 'install bubblewrap and unset STRATUM_RUN_ISOLATION',
    };
  return { status: 'ok', subject: 'run isolation', found: isolation.describe() };
}

/**
 * Whether each Terraform or OpenTofu version the workspaces name is in the tools folder or can be
 * downloaded; one that is neither only fails the jobs of the workspaces naming it, so it warns.
 */
export async function versionPrerequisites(tools: ToolBinaries, versions: readonly VersionInUse[]): Promise<Prerequisite[]> {
  const found: Prerequisite[] = [];
  const lists = new Map<string, Promise<unknown>>();
  for (const { kind, version, workspaces } of versions) {
    const availability = await tools.availability(kind, version, lists);
    const who = `${workspaces} workspace(s)`;
    if (availability.kind === 'present')
      found.push({ status: 'ok', subject: `${kind} ${version}`, found: `${availability.path} (${who})` });
    else if (availability.kind === 'downloadable')
      found.push({ status: 'ok', subject: `${kind} ${version}`, found: `downloaded at its first run from ${availability.from} (${who})` });
    else
      found.push({
        status: 'warn',
        subject: `${kind} ${version}`,
        found: `${availability.reason} The jobs of ${who} fail until it is there.`,
        fix: `put the ${kind} binary at ${availability.path}, or let the executor reach the release list (STRATUM_${kind.toUpperCase()}_RELEASES_URL)`,
      });
  }
  return found;
}

/** Whether a folder exists (or can be made) and takes a file: proven by writing one, as a run will. */
function writable(subject: string, folder: string, create: boolean): Prerequisite {
  try {
    if (create) makeFolder(folder);
    else if (!fs.existsSync(folder)) return creatable(subject, folder);
    const probe = path.join(folder, `.write-check-${randomUUID()}`);
    fs.writeFileSync(probe, '', { mode: 0o600 });
    fs.rmSync(probe);
    return { status: 'ok', subject, found: `${folder} is writable` };
  } catch (error) {
    return unwritable(subject, folder, error);
  }
}

/** A folder not made yet: its nearest existing parent must take it. */
function creatable(subject: string, folder: string): Prerequisite {
  let parent = path.dirname(folder);
  while (!fs.existsSync(parent) && parent !== path.dirname(parent)) parent = path.dirname(parent);
  try {
    fs.accessSync(parent, fs.constants.W_OK);
    if (isReadOnlyMount(parent)) throw Object.assign(new Error('read-only file system'), { code: 'EROFS' });
    return { status: 'ok', subject, found: `${folder} does not exist yet; the server makes it in ${parent}` };
  } catch (error) {
    return unwritable(subject, folder, error);
  }
}

/** Makes a folder and its parents; Node's recursive mkdir answers ENOENT for a parent on a read-only file system, so the last step is retried alone for the real cause. */
function makeFolder(folder: string): void {
  try {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !fs.existsSync(path.dirname(folder))) throw error;
    fs.mkdirSync(folder, { mode: 0o700 });
  }
}

const causes: Readonly<Record<string, string>> = {
  EROFS: 'a read-only file system',
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  ENOSPC: 'no space left',
  ENOTDIR: 'a file is in the way',
  EEXIST: 'a file is in the way',
};

function unwritable(subject: string, folder: string, error: unknown): Prerequisite {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  const cause = causes[code];
  return {
    status: 'fail',
    subject,
    found: `${folder} cannot be written (${code}${cause === undefined ? '' : `: ${cause}`}): jobs cannot run in this process`,
    fix: `give the service's user a writable folder there (Kubernetes: an emptyDir or volume mounted at it; systemd: StateDirectory), set STRATUM_DATA_DIR (or STRATUM_TOOLS_DIR) to one, ${offFix}`,
  };
}

/** Whether `git` runs: every job checks its repository out with it. */
function gitCommand(): Prerequisite {
  const result = spawnSync('git', ['--version'], { encoding: 'utf8', timeout: 10_000 });
  if (result.status === 0) return { status: 'ok', subject: 'git', found: result.stdout.trim() };
  const why = result.error === undefined ? `exited with ${String(result.status)}: ${result.stderr.trim()}` : result.error.message;
  return {
    status: 'fail',
    subject: 'git',
    found: `git does not run (${why}): jobs check their repositories out with it`,
    fix: `install git (and openssh-client for ssh:// sources) on PATH (${process.env.PATH ?? ''}), ${offFix}`,
  };
}

/** Whether `folder` lies on a file system mounted read-only (Linux: /proc/self/mountinfo), where access() as root still says yes. */
function isReadOnlyMount(folder: string): boolean {
  let mounts: string;
  try {
    mounts = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return false;
  }
  const resolved = fs.realpathSync(folder);
  let best: { point: string; readOnly: boolean } | undefined;
  for (const line of mounts.split('\n')) {
    const fields = line.split(' ');
    const point = fields[4]?.replace(/\\040/g, ' ');
    const options = fields[5];
    if (point === undefined || options === undefined) continue;
    const inside = resolved === point || resolved.startsWith(point.endsWith('/') ? point : `${point}/`);
    if (inside && (best === undefined || point.length >= best.point.length)) best = { point, readOnly: options.split(',').includes('ro') };
  }
  return best?.readOnly ?? false;
}

/** An executor whose prerequisites fail: its start fails with each one's line and fix, rather than leave jobs pending. */
export class UnfitExecutor extends Error {
  constructor(readonly failed: readonly Prerequisite[]) {
    super(
      `this process cannot run jobs:\n${failed.map((p) => `  ${p.subject}: ${p.found}${p.fix === undefined ? '' : `\n    fix: ${p.fix}`}`).join('\n')}`,
    );
  }
}

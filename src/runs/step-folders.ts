import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { appendFile, lstat, mkdir, open, readdir, readFile, realpath, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { signalGroup } from './step-process.js';

/** The file in a step's folder that lists the process groups the step started, one per line. */
const groupsFile = '.process-groups';
/** The file in a step's folder that says whose step it is, for a process that finds it left behind. */
const noteFile = '.step.json';
/** What Terraform (and OpenTofu) write in their working folder when they cannot upload a state. */
const erroredStateFile = 'errored.tfstate';
/** The most of an errored state read: the state backend takes no larger one either. */
const maxStateBytes = 64 * 1024 * 1024;

/**
 * The mark of this process on its step folders: its pid, and a random part, since a restarted
 * container's process has the pid (often 1) of the one before it.
 */
const processMark = `p${process.pid}-${randomUUID().slice(0, 8)}`;

/**
 * The part of a step's folder that is the step's own: its processes read and write it (in the
 * sandbox, as the run user), and nothing else. Beside it, out of their reach, the service keeps its
 * notes: whose step it is and which process groups to stop, which a run must not rewrite.
 */
export const workFolder = 'work';

/** Whose step a folder is: what a later process needs to keep the state its tool left there. */
export interface StepNote {
  jobId: string;
  organizationId: string;
  workspaceId: string;
  /** The folder, inside the step's, that the tool runs in: where it leaves errored.tfstate. */
  workdir: string;
}

/** Makes an empty folder for one step of a job, readable by this user alone, with its note and an empty work folder. */
export async function makeStepFolder(runsFolder: string, note: StepNote, step: number): Promise<{ folder: string; work: string }> {
  const folder = path.join(runsFolder, `${processMark}-job-${note.jobId}-step-${step}-${randomUUID()}`);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await writeFile(path.join(folder, noteFile), JSON.stringify(note), { mode: 0o600 });
  const work = path.join(folder, workFolder);
  await mkdir(work, { mode: 0o700 });
  return { folder, work };
}

/** A file a run's process made or changed where the service reads or writes: a link, or a path leading out of the step's folder. */
export class UnsafeStepFile extends Error {}

/**
 * The real path of `folder` (links resolved) when it lies inside `root`: what the service writes
 * into and reads from a step's work folder must stay there, though a repository or a run may have
 * put links in it (to the data folder, the keys).
 */
export async function assertInside(root: string, folder: string): Promise<string> {
  const realRoot = await realpath(root);
  const real = await realpath(folder);
  if (real !== realRoot && !real.startsWith(`${realRoot}${path.sep}`))
    throw new UnsafeStepFile(`${path.relative(root, folder)} leads out of the step's folder`);
  return real;
}

/** Writes a file the service gives a step (variables, a plan), replacing what is there but never writing through a link. */
export async function writeInside(root: string, file: string, data: string | Buffer): Promise<void> {
  const target = path.join(await assertInside(root, path.dirname(file)), path.basename(file));
  const existing = await lstat(target).catch(() => undefined);
  if (existing?.isDirectory() === true) throw new UnsafeStepFile(`${path.relative(root, file)} is a folder`);
  if (existing !== undefined) await unlink(target);
  const handle = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}

/**
 * Reads a file a step's process wrote (a plan, an errored state), at most `maxBytes`: undefined when
 * it is not there or larger; a link or a path leading out of the folder is refused.
 */
export async function readInside(root: string, file: string, maxBytes: number): Promise<Buffer | undefined> {
  let target: string;
  try {
    target = path.join(await assertInside(root, path.dirname(file)), path.basename(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let handle;
  try {
    handle = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new UnsafeStepFile(`${path.relative(root, file)} is a link`);
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new UnsafeStepFile(`${path.relative(root, file)} is not a file`);
    if (info.size > maxBytes) return undefined;
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Notes a process group a step started, so that a later process can stop it if this one dies first. */
export async function recordGroup(stepFolder: string, pid: number): Promise<void> {
  await appendFile(path.join(stepFolder, groupsFile), `${pid}\n`, { mode: 0o600 });
}

/**
 * The state a step's tool wrote to its folder because it could not upload it (its backend was cut
 * off), or undefined when it wrote none: Terraform's answer to a failed final write, which is all
 * that is left of what its apply did.
 */
export async function erroredState(stepFolder: string, workdir: string): Promise<string | undefined> {
  const file = path.join(stepFolder, workdir, erroredStateFile);
  // Folders of versions before the work folder had the checkout beside the notes.
  const root = workdir.startsWith(`${workFolder}${path.sep}`) ? path.join(stepFolder, workFolder) : stepFolder;
  try {
    return (await readInside(root, file, maxStateBytes))?.toString('utf8');
  } catch (error) {
    // What a run put in place of the state is not the state: there is none to keep.
    if (error instanceof UnsafeStepFile) return undefined;
    throw error;
  }
}

/** What becomes of the folders runs of stopped processes left. */
export interface Leftovers {
  /** Folders cleared. */
  cleared: number;
  /** The jobs whose errored.tfstate was stored as a state version. */
  statesKept: string[];
  /** Folders left in place because the state in them could not be stored: the next start tries again. */
  kept: { folder: string; reason: string }[];
}

export interface LeftoverHandling {
  /** How long an interrupted tool has to finish before the next, harder, stop (as for a running step). */
  graceMs: number;
  /** Stores a state a tool left, as a state version of the note's job. */
  keepState(note: StepNote, text: string): Promise<void>;
}

/**
 * Ends what runs of stopped processes left in the runs folder (a server killed during an apply).
 * The processes still running in their steps' groups (a tool whose parent died goes on) are
 * interrupted as a cancel does (SIGINT, again after the grace period, then SIGKILL), so that a tool
 * that reaches the state backend saves its state; a state a tool could not upload (errored.tfstate)
 * is stored for its job; then the folders, which hold the runs' variables and checkouts, are
 * removed. Folders of processes still alive (another executor on this machine) are left alone.
 */
export async function clearLeftovers(runsFolder: string, handling: LeftoverHandling): Promise<Leftovers> {
  const result: Leftovers = { cleared: 0, statesKept: [], kept: [] };
  const entries = await readdir(runsFolder).catch(() => []);
  const stale = entries
    .filter((entry) => !entry.startsWith(`${processMark}-`) && !ownerAlive(entry))
    .map((entry) => path.join(runsFolder, entry));
  const groups: number[] = [];
  for (const folder of stale) {
    const listed = await readFile(path.join(folder, groupsFile), 'utf8').catch(() => '');
    for (const line of listed.split('\n')) {
      const pid = Number(line);
      if (Number.isSafeInteger(pid) && pid > 1) groups.push(pid);
    }
  }
  await interruptGroups(groups, handling.graceMs);
  for (const folder of stale) {
    const note = await readNote(folder);
    const text = note === undefined ? undefined : await erroredState(folder, note.workdir);
    if (note !== undefined && text !== undefined) {
      try {
        await handling.keepState(note, text);
        result.statesKept.push(note.jobId);
      } catch (error) {
        result.kept.push({ folder, reason: error instanceof Error ? error.message : String(error) });
        continue;
      }
    }
    await rm(folder, { recursive: true, force: true });
    result.cleared++;
  }
  return result;
}

async function readNote(folder: string): Promise<StepNote | undefined> {
  try {
    const note = JSON.parse(await readFile(path.join(folder, noteFile), 'utf8')) as Partial<StepNote>;
    const { jobId, organizationId, workspaceId, workdir } = note;
    if ([jobId, organizationId, workspaceId, workdir].some((value) => typeof value !== 'string')) return undefined;
    // A note is this service's own file, but a run could have rewritten it: its workdir stays inside the folder.
    if (path.isAbsolute(String(workdir)) || path.normalize(String(workdir)).startsWith('..')) return undefined;
    return note as StepNote;
  } catch {
    return undefined;
  }
}

/** Whether the process that made a folder still runs, and is not this one's predecessor under the same pid. */
function ownerAlive(entry: string): boolean {
  const owner = /^p(\d+)-/.exec(entry)?.[1];
  if (owner === undefined || Number(owner) === process.pid) return false;
  return isAlive(Number(owner));
}

/** Interrupts process groups as a cancel does, waiting for them to end between the signals. */
async function interruptGroups(groups: readonly number[], graceMs: number): Promise<void> {
  let alive = groups.filter(groupAlive);
  for (const [signal, wait] of [
    ['SIGINT', graceMs],
    ['SIGINT', graceMs],
    ['SIGKILL', 0],
  ] as const) {
    if (alive.length === 0) return;
    for (const pid of alive) signalLeftover(pid, signal);
    const until = Date.now() + wait;
    while (Date.now() < until && (alive = alive.filter(groupAlive)).length > 0) await sleep(100);
  }
}

/** Whether a group still has a process this user may signal: one another user holds now (its number reused) is not the step's. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signalLeftover(pid: number, signal: NodeJS.Signals): void {
  try {
    signalGroup(pid, signal);
  } catch (error) {
    // A group another user holds now (its number reused) is not the step's.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}

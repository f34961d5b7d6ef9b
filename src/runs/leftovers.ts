import { appendFile, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { signalGroup } from './step-process.js';

/** The file in a step's folder that lists the process groups the step started, one per line. */
const groupsFile = '.process-groups';

/** The folder of a step of this process: its pid first, so that another process can tell a stopped one's leftovers. */
export function stepFolderName(jobId: string, step: number, unique: string): string {
  return `p${process.pid}-job-${jobId}-step-${step}-${unique}`;
}

/** Notes a process group a step started, so that a later process can stop it if this one dies first. */
export async function recordGroup(stepFolder: string, pid: number): Promise<void> {
  await appendFile(path.join(stepFolder, groupsFile), `${pid}\n`, { mode: 0o600 });
}

/**
 * Clears what runs of stopped processes left in the runs folder (a server killed during an apply):
 * the processes still running in their steps' groups (a tool whose parent died leaves its plugins
 * running) are killed, and the folders, which hold the runs' variables and checkouts, are removed.
 * Folders of processes still alive (another executor on this machine) are left alone.
 */
export async function clearLeftovers(runsFolder: string): Promise<number> {
  let cleared = 0;
  const entries = await readdir(runsFolder).catch(() => []);
  for (const entry of entries) {
    const owner = /^p(\d+)-/.exec(entry)?.[1];
    if (owner !== undefined && (Number(owner) === process.pid || isAlive(Number(owner)))) continue;
    const folder = path.join(runsFolder, entry);
    const groups = await readFile(path.join(folder, groupsFile), 'utf8').catch(() => '');
    for (const line of groups.split('\n')) {
      const pid = Number(line);
      if (Number.isSafeInteger(pid) && pid > 1) killGroup(pid);
    }
    await rm(folder, { recursive: true, force: true });
    cleared++;
  }
  return cleared;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function killGroup(pid: number): void {
  try {
    signalGroup(pid, 'SIGKILL');
  } catch (error) {
    // A group another user holds now (its number reused) is not the step's.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}

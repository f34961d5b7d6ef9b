import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { lchown, lstat, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { SandboxSettings } from '../run-config.js';

/** Where a step's process runs: the step's own folder (read and written) and the folder it starts in. */
export interface SandboxPlace {
  /** The step's folder: the only one of the machine's the process may write. */
  folder: string;
  cwd: string;
  /** Folders, besides the system's, that this process may read (the tool's own). */
  readOnly: readonly string[];
}

/** How a process of a step starts: the command that makes its sandbox, then runs it. */
export interface SandboxedCommand {
  command: string;
  args: string[];
}

/** How a step's processes are started, and what the service's own writes into its folder need. */
export interface StepIsolation {
  wrap(command: string, args: readonly string[], place: SandboxPlace): SandboxedCommand;
  handOver(target: string): Promise<void>;
  describe(): string;
}

/** Runs as the service itself, when an operator set STRATUM_RUN_ISOLATION=none: the command as it is. */
export const noIsolation: StepIsolation = {
  wrap: (command, args) => ({ command, args: [...args] }),
  handOver: () => Promise.resolve(),
  describe: () => "none (STRATUM_RUN_ISOLATION=none): runs have this process's rights",
};

/** The isolation of these settings: the sandbox, none when an operator accepts that, or why there can be none. */
export function findIsolation(settings: SandboxSettings): StepIsolation | SandboxUnavailable {
  return settings.isolation === 'none' ? noIsolation : StepSandbox.find(settings);
}

/** Why runs cannot be isolated here, with what fixes it; jobs then fail with it rather than run unisolated. */
export class SandboxUnavailable {
  constructor(readonly reason: string) {}
}

/**
 * Every process of a step runs in a sandbox of bubblewrap's (Debian's `bubblewrap`): new mount,
 * PID, IPC and UTS namespaces that hold the system's programs and libraries read-only, a few files
 * of /etc (names, certificates, the resolver), a /proc of its own processes, a /dev of the harmless
 * devices, a /tmp of its own in memory, the tool's folder read-only, and the step's folder: not the
 * data folder, the keys, the database, the service's or other steps' processes and folders. Its
 * user is a dedicated one (`STRATUM_RUN_USER`) with no capabilities and no way to gain any when the
 * service runs as root, or the service's own user, in a user namespace that cannot make another,
 * when it does not. Limits (prlimit) bound each process's memory, the run user's processes, the
 * size of a file and the open files. When the step's command ends, the PID namespace ends with it:
 * nothing it started outlives it, `setsid` or not. The network is the machine's: a run reaches the
 * state backend and the registries as before (docs/operations.md, "What a run can reach").
 */
export class StepSandbox implements StepIsolation {
  private constructor(
    private readonly settings: SandboxSettings,
    private readonly programs: Programs,
    /** The run user, when this process runs as root and switches to it; undefined: the service's own user. */
    readonly runUser: { uid: number; gid: number } | undefined,
  ) {}

  /** The sandbox of these settings on this machine, once a probe proved it works; why not otherwise. */
  static find(settings: SandboxSettings): StepSandbox | SandboxUnavailable {
    const programs = findPrograms();
    if (programs instanceof SandboxUnavailable) return programs;
    const asRoot = process.getuid?.() === 0;
    const sandbox = new StepSandbox(settings, programs, asRoot ? settings.runUser : undefined);
    const problem = sandbox.probe();
    return problem === undefined ? sandbox : new SandboxUnavailable(problem);
  }

  /** Who a step's processes run as, for the executor's start line. */
  describe(): string {
    const user = this.runUser === undefined ? `the service's user (uid ${process.getuid?.() ?? '?'})` : `uid ${this.runUser.uid}`;
    return `bubblewrap (${this.programs.bwrap}), as ${user}`;
  }

  /** The command that runs `command` in the sandbox of a step's place. */
  wrap(command: string, args: readonly string[], place: SandboxPlace): SandboxedCommand {
    const { limits } = this.settings;
    const { programs } = this;
    const system = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'].flatMap((folder) => ['--ro-bind-try', folder, folder]);
    const etc = etcFiles.flatMap((file) => ['--ro-bind-try', `/etc/${file}`, `/etc/${file}`]);
    const mounted = [...new Set([...this.settings.readOnly, ...place.readOnly])];
    // bubblewrap makes the folders leading to a mount with the modes of the machine's (a data folder's 0700 among
    // them), which the run user could not pass: they are made first, open to pass through and holding nothing else.
    const leading = [...new Set([...mounted, place.folder].flatMap(parentsOf))].flatMap((folder) => ['--perms', '0755', '--dir', folder]);
    const readOnly = mounted.flatMap((folder) => ['--ro-bind-try', folder, folder]);
    const { user, switchUser } =
      this.runUser === undefined
        ? // The service's own user: a user namespace of its own, in which no further one can be made.
          { user: ['--unshare-user', '--disable-userns'], switchUser: [] }
        : // Root: what switching to the run user takes, dropped by setpriv before the command starts.
          {
            user: ['--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_SETPCAP'],
            switchUser: [
              programs.setpriv,
              `--reuid=${this.runUser.uid}`,
              `--regid=${this.runUser.gid}`,
              '--clear-groups',
              '--inh-caps=-all',
              '--bounding-set=-all',
              '--no-new-privs',
              '--',
            ],
          };
    return {
      // The sandbox's own processes ignore SIGINT: an interrupt to the step's process group reaches
      // the command (which gets SIGINT back as its default just before it starts), and bubblewrap
      // waits for it to finish rather than ending at once and taking the namespace with it.
      command: programs.env,
      args: [
        '--ignore-signal=INT',
        programs.bwrap,
        '--unshare-pid',
        '--unshare-ipc',
        '--unshare-uts',
        '--unshare-cgroup-try',
        ...user,
        '--hostname',
        'stratum-run',
        ...system,
        ...etc,
        '--proc',
        '/proc',
        '--dev',
        '/dev',
        '--size',
        String(this.settings.tmpBytes),
        '--tmpfs',
        '/tmp',
        ...leading,
        ...readOnly,
        '--bind',
        place.folder,
        place.folder,
        '--chdir',
        place.cwd,
        '--',
        ...switchUser,
        programs.prlimit,
        `--data=${limits.memoryBytes}`,
        `--nproc=${limits.processes}`,
        `--fsize=${limits.fileBytes}`,
        `--nofile=${limits.openFiles}`,
        '--core=0',
        '--',
        programs.env,
        '--default-signal=INT',
        command,
        ...args,
      ],
    };
  }

  /**
   * Gives the run user what the service wrote into a step's folder (a checkout, the variables, a
   * plan), not following links: a no-op when steps run as the service's own user.
   */
  async handOver(target: string): Promise<void> {
    const user = this.runUser;
    if (user === undefined) return;
    const walk = async (entry: string): Promise<void> => {
      const info = await lstat(entry);
      if (info.uid !== user.uid || info.gid !== user.gid) await lchown(entry, user.uid, user.gid);
      if (info.isDirectory()) for (const child of await readdir(entry)) await walk(path.join(entry, child));
    };
    await walk(target);
  }

  /** Runs `id -u` in a sandbox as a step would; undefined when it answered the expected user, else why not. */
  private probe(): string | undefined {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-sandbox-probe-'));
    try {
      if (this.runUser !== undefined) fs.chownSync(folder, this.runUser.uid, this.runUser.gid);
      const { command, args } = this.wrap('/bin/sh', ['-c', 'id -u && touch probe'], { folder, cwd: folder, readOnly: [] });
      const result = spawnSync(command, args, { cwd: folder, env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8', timeout: 15_000 });
      const expected = String(this.runUser?.uid ?? process.getuid?.());
      if (result.status === 0 && result.stdout.trim() === expected && fs.existsSync(path.join(folder, 'probe'))) return undefined;
      const said = `${result.error?.message ?? ''} ${result.stderr.trim()} ${result.stdout.trim()}`.trim();
      return `bubblewrap could not make a step's sandbox here (exit ${String(result.status)}: ${said === '' ? 'no output' : said}): ${unavailableFix}`;
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  }
}

/** The folders leading to `folder`, from the root's first: `/a/b/c` gives `/a` and `/a/b`. */
function parentsOf(folder: string): string[] {
  const parts = path
    .resolve(folder)
    .split(path.sep)
    .filter((part) => part !== '');
  return parts.slice(0, -1).map((_, index) => `/${parts.slice(0, index + 1).join('/')}`);
}

/** What makes a machine without a sandbox run jobs, and what an operator may do instead. */
const unavailableFix =
  "install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap) and allow user namespaces (containers: a seccomp profile that permits them, see docs/operations.md), or set STRATUM_RUN_ISOLATION=none to accept runs with this process's rights, or STRATUM_EXECUTOR=off to run jobs elsewhere";

/** The files of /etc a step reads: names and addresses, certificates, time zone; not the machine's other settings. */
const etcFiles = [
  'passwd',
  'group',
  'hosts',
  'resolv.conf',
  'nsswitch.conf',
  'host.conf',
  'gai.conf',
  'ssl',
  'ca-certificates',
  'ca-certificates.conf',
  'pki',
  'localtime',
  'alternatives',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'gitconfig',
  'ssh/ssh_config',
  'ssh/ssh_config.d',
  'mime.types',
];

interface Programs {
  bwrap: string;
  env: string;
  prlimit: string;
  setpriv: string;
}

/** The programs that make a sandbox, found on the service's PATH as a shell would find them. */
function findPrograms(): Programs | SandboxUnavailable {
  const folders = (process.env.PATH ?? '').split(path.delimiter).filter((folder) => path.isAbsolute(folder));
  const found: Partial<Programs> = {};
  const missing: string[] = [];
  for (const name of ['bwrap', 'env', 'prlimit', 'setpriv'] as const) {
    const where = folders.map((folder) => path.join(folder, name)).find(executable);
    if (where === undefined) missing.push(name);
    else found[name] = where;
  }
  if (missing.length > 0)
    return new SandboxUnavailable(
      `${missing.join(', ')} not found on PATH (bubblewrap and util-linux make a step's sandbox): ${unavailableFix}`,
    );
  return found as Programs;
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { inspectConfig } from '../src/config.ts';
import { settingNames } from '../src/setting-names.ts';
import { mountHolding, stopSeconds } from './deploy-run-needs.ts';

/**
 * deploy/systemd/: the unit passes `systemd-analyze verify` without a word (it exits 0 even on an
 * unknown key, so its output is what counts), scores as well hardened by `systemd-analyze security`,
 * leaves runs what they need (a writable runs and tools folder, the system calls and address
 * families their tools use, time to stop, a stop signal for the server alone), and its environment
 * file example names only settings Stratum knows.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const folder = path.join(root, 'deploy', 'systemd');
const unit = fs.readFileSync(path.join(folder, 'stratum.service'), 'utf8');
const analyze = process.env.STRATUM_TEST_SYSTEMD_ANALYZE ?? 'systemd-analyze';
const skip =
  spawnSync(analyze, ['--version'], { encoding: 'utf8' }).error === undefined
    ? false
    : `${analyze} is not installed (it comes with systemd): the unit is not verified`;

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-systemd-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Runs systemd-analyze on a copy of the unit; verify checks that ExecStart's program exists, so it names this node. */
function analyzeUnit(command: string[], text: string = unit): { status: number | null; output: string } {
  const file = path.join(scratch, 'stratum.service');
  fs.writeFileSync(file, text.replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `));
  const result = spawnSync(analyze, [...command, file], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

/** The unit's values of a setting, in order (a later line adds to or overrides an earlier one). */
const values = (name: string): string[] => [...unit.matchAll(new RegExp(`^${name}=(.*)$`, 'gm'))].map((m) => m[1] ?? '');

/**
 * The environment the service starts with: the unit's Environment= lines (%S is /var/lib for a
 * system service), then what the example environment file sets.
 */
function serviceEnvironment(): Record<string, string> {
  const environment: Record<string, string> = {};
  const assign = (line: string) => {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match?.[1] !== undefined) environment[match[1]] = match[2] ?? '';
  };
  for (const line of values('Environment')) assign(line.replaceAll('%S', '/var/lib'));
  for (const line of fs.readFileSync(path.join(folder, 'stratum.env.example'), 'utf8').split('\n')) assign(line.trim());
  return environment;
}

/**
 * The system calls git, ssh and Terraform 1.11.4 made, traced here with `strace -f -c`: a shallow
 * fetch and checkout, ls-remote over https and ssh, init of a configuration with hashicorp/aws
 * 5.100.0 (unpacked from an archive, and linked from a plugin cache), plan, show -json and apply
 * with and without the provider; with setsid and kill, which the server makes to start and
 * interrupt their process groups.
 */
const runSystemCalls = `accept4 access alarm arch_prctl bind brk chdir clone clone3 close close_range connect dup dup2 dup3
  epoll_create1 epoll_ctl epoll_pwait eventfd2 execve fchmodat fcntl fstat fsync ftruncate futex getcwd getdents64 getegid
  geteuid getgid getpeername getpid getppid getrandom getrlimit getsockname getsockopt gettid getuid ioctl kill link listen
  lseek madvise mkdir mkdirat mmap mprotect munmap nanosleep newfstatat openat pidfd_open pidfd_send_signal pipe2 poll
  pread64 prlimit64 read readlink readlinkat rename renameat restart_syscall rseq rt_sigaction rt_sigprocmask rt_sigreturn
  sched_getaffinity sched_yield set_robust_list set_tid_address setsid setsockopt sigaltstack socket socketpair statfs
  symlinkat tgkill umask uname unlink unlinkat vfork wait4 waitid write`.split(/\s+/);

/** systemd's groups of system calls by name, as `systemd-analyze syscall-filter` lists them all. */
const systemCallGroups = (() => {
  const groups = new Map<string, string[]>();
  if (skip !== false) return groups;
  const listed = spawnSync(analyze, ['syscall-filter'], { encoding: 'utf8' });
  assert.equal(listed.status, 0, listed.stderr);
  let members: string[] = [];
  for (const line of listed.stdout.split('\n')) {
    if (line.startsWith('@')) groups.set(line.trim(), (members = []));
    else if (/^\s+[@a-z_0-9-]+$/.test(line)) members.push(line.trim());
  }
  return groups;
})();

/** The system calls a filter entry names: a call, or a group with its nested groups expanded. */
function systemCalls(entry: string): string[] {
  if (!entry.startsWith('@')) return [entry];
  const members = systemCallGroups.get(entry) ?? assert.fail(`systemd knows no group ${entry}`);
  return members.flatMap(systemCalls);
}

describe('the systemd unit', { skip }, () => {
  it('passes systemd-analyze verify without a warning, which a mistyped setting would draw', () => {
    assert.deepEqual(analyzeUnit(['verify']), { status: 0, output: '' });
    const mistyped = analyzeUnit(['verify'], unit.replace('ProtectSystem=strict', 'ProtectSystem=strictly'));
    assert.match(mistyped.output, /protect system/i);
  });

  it('runs as a dynamic user with its data in a state directory, a read-only system and no privileges to gain', () => {
    for (const line of [
      'DynamicUser=yes',
      'StateDirectory=stratum',
      'StateDirectoryMode=0700',
      'Environment=STRATUM_DATA_DIR=%S/stratum',
      'ProtectSystem=strict',
      'NoNewPrivileges=yes',
      'CapabilityBoundingSet=',
      'KillSignal=SIGTERM',
    ]) {
      assert.ok(unit.split('\n').includes(line), line);
    }
    // V8 needs writable, executable memory for its compiled code.
    assert.doesNotMatch(unit, /^MemoryDenyWriteExecute=yes/m);
  });

  it('signals the server alone on stop, and waits for a stop during a run before the kill', () => {
    assert.deepEqual(values('KillMode'), ['mixed'], 'control-group would interrupt every Terraform a second time at once');
    const config = inspectConfig(serviceEnvironment());
    assert.deepEqual(
      config.problems.filter((p) => !p.includes('ENCRYPTION_KEY')),
      [],
    );
    const timeout = Number(values('TimeoutStopSec').at(-1));
    const needed = stopSeconds(config.config);
    assert.ok(timeout >= needed, `TimeoutStopSec ${timeout} < ${needed}`);
    // The sum follows the settings: twice the step grace would no longer fit.
    const doubled = inspectConfig({ ...serviceEnvironment(), STRATUM_STEP_GRACE_SECONDS: String(config.config.runs.graceMs / 500) });
    assert.ok(timeout < stopSeconds(doubled.config));
  });

  it('leaves the runs and tools folders writable: inside the state directory, the one place ProtectSystem=strict leaves writable', () => {
    const { runs } = inspectConfig(serviceEnvironment()).config;
    const stateDirectories = values('StateDirectory')
      .flatMap((v) => v.split(/\s+/))
      .map((d) => ({ path: `/var/lib/${d}` }));
    for (const folder of [runs.runsDir, runs.toolsDir])
      assert.ok(mountHolding(stateDirectories, folder) !== undefined, `${folder} is outside the state directory`);
    for (const blocking of ['ReadOnlyPaths', 'InaccessiblePaths', 'TemporaryFileSystem', 'NoExecPaths'])
      assert.deepEqual(values(blocking), [], `${blocking} could take the runs' folders or tools away`);
  });

  it("allows every system call and address family the runs' git, ssh and Terraform were traced to use", () => {
    const allowed = new Set<string>();
    const denied = new Set<string>();
    for (const filter of values('SystemCallFilter')) {
      const [into, groups] = filter.startsWith('~') ? [denied, filter.slice(1)] : [allowed, filter];
      for (const entry of groups.split(/\s+/)) for (const call of systemCalls(entry)) into.add(call);
    }
    assert.deepEqual(
      runSystemCalls.filter((call) => !allowed.has(call) || denied.has(call)),
      [],
      'system calls the filter kills the runs for',
    );
    // Terraform talks to its providers over Unix sockets; git, ssh and providers reach the network.
    const families = values('RestrictAddressFamilies').flatMap((v) => v.split(/\s+/));
    for (const family of ['AF_UNIX', 'AF_INET', 'AF_INET6']) assert.ok(families.includes(family), family);
  });

  it('scores as well hardened (exposure below 2 of 10) by systemd-analyze security', () => {
    const { output } = analyzeUnit(['security', '--offline=yes', '--no-pager']);
    const exposure = Number(/Overall exposure level for stratum\.service: ([\d.]+)/.exec(output)?.[1]);
    assert.ok(exposure < 2, `exposure ${exposure}`);
  });
});

describe('the environment file example', () => {
  it('names only settings Stratum knows', () => {
    const example = fs.readFileSync(path.join(folder, 'stratum.env.example'), 'utf8');
    const names = [...example.matchAll(/^#?(STRATUM_[A-Z0-9_]+)=/gm)].map((m) => m[1] ?? '');
    assert.ok(names.length > 0);
    for (const name of names) assert.ok(settingNames.includes(name), name);
  });
});

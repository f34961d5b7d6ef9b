/**
 * A run reaches only what is its own: the code of a workspace's repository (a local-exec in its
 * apply, a tool started by its plan) tries what a run could do before steps had a sandbox: read the
 * data folder (keys, database), write into it, read the server's environment and memory and the
 * executor's notes on the step, see other processes, find the service's settings in its own
 * environment, and leave a process running after its step. Each attempt is refused, on each store,
 * with the binary test/terraform-binary.ts chooses; a machine that cannot make a sandbox fails jobs
 * with the reason rather than run them unisolated.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createOrganization, createTemplate, eventually, storeKinds } from './harness.ts';
import { assertInside, readInside, UnsafeStepFile, writeInside } from '../src/runs/step-folders.ts';
import { mainTf, RunBench, secretValue } from './run-fixtures.ts';
import { binary, binaryName, terraformVersion } from './terraform-binary.ts';

const asRoot = process.getuid?.() === 0;
/** Who a step's processes are: the dedicated run user when the service runs as root, else the service's own user. */
const runUid = asRoot ? 61000 : process.getuid?.();

const flow = (type: string) => Buffer.from(`flow:\n  - type: ${type}\n    name: Step\n    step: 100\n`).toString('base64');

/** Whether a process of this machine's runs `sleep <seconds>`: what a run tried to leave behind. */
function sleeping(seconds: number): boolean {
  try {
    return execFileSync('pgrep', ['-f', `sleep ${seconds}`], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}

/** A shell script that tries each of `probes` (name, command) and prints whether it got through. */
function probing(probes: [string, string][]): string {
  const lines = probes.map(
    ([name, command]) => `if ( ${command} ) >/dev/null 2>&1; then echo "REACHED ${name}"; else echo "refused ${name}"; fi`,
  );
  return `#!/bin/sh\n${lines.join('\n')}\n`;
}

for (const kind of storeKinds) {
  describe(`a run reaches only what is its own (${kind}, ${binaryName})`, () => {
    let bench: RunBench;
    before(async () => {
      bench = await RunBench.start(kind);
    });
    after(async () => {
      await bench.stop();
    });

    /** The data folder's own files (keys, the database): what no run may read. */
    const dataFiles = () =>
      fs
        .readdirSync(bench.server.env.STRATUM_DATA_DIR ?? '')
        .filter((entry) => !['runs', 'tools'].includes(entry))
        .map((entry) => path.join(bench.server.env.STRATUM_DATA_DIR ?? '', entry));

    it("refuses a repository's apply the data folder, the server's process, the executor's notes, the service's settings and a process outliving it", async () => {
      const data = bench.server.env.STRATUM_DATA_DIR ?? '';
      const files = dataFiles();
      // The embedded store's keys and database are files there; PostgreSQL's settings are in the server's environment.
      if (kind === 'sqlite') assert.ok(files.length > 0, 'the data folder holds the service files the run tries');
      const server = bench.server.pid;
      const leftBehind = 3000 + Math.floor(Math.random() * 900);
      const attack = `${probing([
        // The folders leading to its own are there, empty but for the way to it.
        ['data-folder', `ls -A '${data}' | grep -qv '^runs$'`],
        ...files.map((file): [string, string] => [`file-${path.basename(file)}`, `head -c 1 '${file}'`]),
        ['write-data-folder', `touch '${data}/planted'`],
        ['other-steps', `[ "$(ls -A '${path.join(data, 'runs')}' | wc -l)" -gt 1 ]`],
        ['server-environ', `head -c 1 /proc/${server}/environ`],
        ['server-memory', `head -c 1 /proc/${server}/cmdline && head -c 1 /proc/${server}/mem`],
        ['step-notes', 'cat ../../.step.json || cat ../../.process-groups'],
        ['write-system', 'touch /usr/planted'],
      ])}echo "UID $(id -u)"
echo "PROCESSES $(ls /proc | grep -c '^[0-9]')"
env | grep -E '^(STRATUM_|DATABASE_URL|PG)' | sed 's/=.*//; s/^/LEAKED-ENV /'
for p in /proc/[0-9]*; do grep -qa -e STRATUM_ -e DATABASE_URL $p/environ 2>/dev/null && echo "SETTINGS-IN $p"; done
setsid sleep ${leftBehind} >/dev/null 2>&1 &
nohup sleep ${leftBehind + 1000} >/dev/null 2>&1 &
echo probed-all
`;
      const workspace = await bench.workspaceOf('attack', { 'main.tf': mainTf('sh ./attack.sh'), 'attack.sh': attack }, [
        { key: 'name', value: 'attack', category: 'TERRAFORM' },
      ]);
      const template = await createTemplate(bench.server, bench.organization, { name: 'apply-attack', tcl: flow('terraformApply') });
      const { steps } = await bench.statusOf(await bench.startJob(workspace, template), 'completed');
      const log = await bench.logOf(steps[0]?.attributes.output);
      assert.match(log, /probed-all/);
      assert.doesNotMatch(log, /REACHED/, 'the run got through somewhere');
      for (const file of files) assert.match(log, new RegExp(`refused file-${path.basename(file)}`));
      assert.match(log, /refused server-environ/);
      assert.doesNotMatch(log, /LEAKED-ENV|SETTINGS-IN/);
      assert.match(log, new RegExp(`UID ${String(runUid)}\\b`));
      const processes = Number(/PROCESSES (\d+)/.exec(log)?.[1]);
      assert.ok(processes > 0 && processes < 16, `the run sees ${processes} processes: its own alone`);
      assert.equal(fs.existsSync(path.join(data, 'planted')), false);
      await eventually('nothing the run started outlives its step', () => {
        assert.equal(sleeping(leftBehind), false, 'setsid');
        assert.equal(sleeping(leftBehind + 1000), false, 'nohup');
      });
    });

    it("keeps another organization's running job out of reach: its processes' environment, its variables and its folder", async () => {
      // The victim: a job of this organization that holds a sensitive ENV variable and a TERRAFORM one while it runs.
      const victim = await bench.workspaceRunning('victim', 'sleep 15');
      const victimJob = await bench.startJob(
        victim,
        await createTemplate(bench.server, bench.organization, { name: 'victim', tcl: flow('terraformApply') }),
      );
      await bench.stepRuns(victimJob, 0);
      // The attacker: a job of another organization, run beside it (two runs at once by default).
      const home = bench.organization;
      bench.organization = await createOrganization(bench.server);
      try {
        const runs = path.join(bench.server.env.STRATUM_DATA_DIR ?? '', 'runs');
        const attack = `${probing([
          ['victim-environ', `grep -s -l -a '${secretValue}' /proc/[0-9]*/environ`],
          // A bracket keeps the pattern from matching this script itself, which lies in the runs folder too.
          ['victim-variables', `grep -s -r -l -a 'alph[a]' '${runs}'`],
          ['victim-folder', `ls -d '${runs}'/*-job-${victimJob}-*`],
        ])}echo probed-all\n`;
        const workspace = await bench.workspaceOf('thief', { 'main.tf': mainTf('sh ./attack.sh'), 'attack.sh': attack }, [
          { key: 'name', value: 'thief', category: 'TERRAFORM' },
        ]);
        const template = await createTemplate(bench.server, bench.organization, { name: 'thief', tcl: flow('terraformApply') });
        const { steps } = await bench.statusOf(await bench.startJob(workspace, template), 'completed');
        const victimNow = await bench.server.get(`/api/v1/organization/${home}/job/${victimJob}`);
        assert.equal(victimNow.body.data.attributes.status, 'running', 'the victim ran all along');
        const log = await bench.logOf(steps[0]?.attributes.output);
        assert.match(log, /probed-all/);
        assert.doesNotMatch(log, /REACHED/);
        assert.doesNotMatch(log, new RegExp(secretValue));
      } finally {
        bench.organization = home;
      }
      await bench.statusOf(victimJob, 'completed');
    });

    it("runs the tool itself in the sandbox too: a plan's process (and a provider it starts) reads no key", async () => {
      const key = dataFiles()[0] ?? '';
      const folder = path.join(bench.tools, 'terraform', terraformVersion);
      const tool = path.join(folder, 'terraform');
      // A tool that probes before it is the real one: as a provider a repository ships would, inside plan.
      fs.rmSync(tool);
      fs.writeFileSync(
        tool,
        `#!/bin/sh\necho "TOOL-UID $(id -u) $1" >&2\nif head -c 1 '${key}' >/dev/null 2>&1; then echo "TOOL-REACHED-KEY $1" >&2; fi\nexec '${fs.realpathSync(binary)}' "$@"\n`,
        { mode: 0o755 },
      );
      try {
        const workspace = await bench.workspaceOf('tool', { 'main.tf': mainTf('echo planned') }, [
          { key: 'name', value: 'tool', category: 'TERRAFORM' },
        ]);
        const template = await createTemplate(bench.server, bench.organization, { name: 'plan-tool', tcl: flow('terraformPlan') });
        const jobId = await bench.startJob(workspace, template);
        const { job, steps } = await eventually(
          'the plan ends',
          async () => {
            const found = await bench.jobOf(jobId);
            assert.ok(['completed', 'noChanges', 'failed'].includes(String(found.job.attributes.status)));
            return found;
          },
          { timeoutMs: 90_000, intervalMs: 200 },
        );
        assert.notEqual(job.attributes.status, 'failed', String(job.attributes.comments));
        const log = await bench.logOf(steps[0]?.attributes.output);
        assert.match(log, new RegExp(`TOOL-UID ${String(runUid)} init`));
        assert.match(log, new RegExp(`TOOL-UID ${String(runUid)} plan`));
        assert.doesNotMatch(log, /TOOL-REACHED-KEY/);
      } finally {
        fs.rmSync(tool);
        fs.symlinkSync(binary, tool);
      }
    });
  });
}

describe('a machine without a sandbox', () => {
  let bench: RunBench;
  let bin: string;
  before(async () => {
    // A PATH with git alone: no bubblewrap to make a sandbox with.
    bin = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-test-bin-'));
    fs.symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), path.join(bin, 'git'));
    bench = await RunBench.start('sqlite', { env: { PATH: bin } });
  });
  after(async () => {
    await bench.stop();
    fs.rmSync(bin, { recursive: true, force: true });
  });

  it('fails each job with the reason and the fix, running nothing unisolated', async () => {
    const marker = path.join(bench.tools, 'ran');
    const workspace = await bench.workspaceOf('unisolated', { 'main.tf': mainTf(`touch ${marker}`) }, [
      { key: 'name', value: 'x', category: 'TERRAFORM' },
    ]);
    const template = await createTemplate(bench.server, bench.organization, { name: 'apply', tcl: flow('terraformApply') });
    const { job } = await bench.statusOf(await bench.startJob(workspace, template), 'failed');
    assert.match(String(job.attributes.comments), /cannot isolate runs: bwrap, env, prlimit, setpriv not found on PATH/);
    assert.match(String(job.attributes.comments), /apt-get install bubblewrap/);
    assert.equal(fs.existsSync(marker), false);
    assert.ok(bench.server.logs.some((line) => line.includes('runs cannot be isolated here')));
  });
});

describe("the service's own reads and writes in a step's folder", () => {
  let root: string;
  let outside: string;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-test-step-'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-test-outside-'));
    fs.writeFileSync(path.join(outside, 'encryption.key'), 'the key');
  });
  after(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('follow no link a repository or a run left: a file, or a folder leading out', async () => {
    // A plan file a run replaced with a link to a key: not read, so not stored as the job's plan.
    fs.symlinkSync(path.join(outside, 'encryption.key'), path.join(root, 'stratum.tfplan'));
    await assert.rejects(readInside(root, path.join(root, 'stratum.tfplan'), 1024), UnsafeStepFile);
    // Written, the link is replaced, not written through.
    await writeInside(root, path.join(root, 'stratum.tfplan'), 'plan');
    assert.equal(fs.readFileSync(path.join(outside, 'encryption.key'), 'utf8'), 'the key');
    assert.equal(fs.readFileSync(path.join(root, 'stratum.tfplan'), 'utf8'), 'plan');
    // A workspace folder that is a link out of the checkout.
    fs.symlinkSync(outside, path.join(root, 'infra'));
    await assert.rejects(assertInside(root, path.join(root, 'infra')), UnsafeStepFile);
    await assert.rejects(writeInside(root, path.join(root, 'infra', 'terraform.tfvars'), 'x'), UnsafeStepFile);
    await assert.rejects(readInside(root, path.join(root, 'infra', 'encryption.key'), 1024), UnsafeStepFile);
    assert.deepEqual(fs.readdirSync(outside), ['encryption.key']);
    // What lies inside is read, within its bound.
    assert.equal((await readInside(root, path.join(root, 'stratum.tfplan'), 1024))?.toString(), 'plan');
    assert.equal(await readInside(root, path.join(root, 'stratum.tfplan'), 2), undefined);
    assert.equal(await readInside(root, path.join(root, 'absent'), 1024), undefined);
  });
});

describe("a run's source on a host the outbound policy does not list", () => {
  let bench: RunBench;
  before(async () => {
    bench = await RunBench.start('sqlite', { env: { STRATUM_OUTBOUND_ALLOW: '' } });
  });
  after(async () => {
    await bench.stop();
  });

  it('fails the checkout naming the policy, so a workspace cannot make the executor scan its network', async () => {
    const workspace = await bench.workspaceOf('internal', { 'main.tf': mainTf('echo unreachable') }, [
      { key: 'name', value: 'x', category: 'TERRAFORM' },
    ]);
    const template = await createTemplate(bench.server, bench.organization, { name: 'apply', tcl: flow('terraformApply') });
    const { steps } = await bench.statusOf(await bench.startJob(workspace, template), 'failed');
    const log = await bench.logOf(steps[0]?.attributes.output);
    assert.match(
      log,
      /The source's host 127\.0\.0\.1 is refused: 127\.0\.0\.1: it is a loopback or private address that STRATUM_OUTBOUND_ALLOW does not list\./,
    );
    assert.doesNotMatch(log, /unreachable/);
  });
});

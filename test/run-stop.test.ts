/**
 * A stop during an apply: a process manager's SIGTERM (a restart, a rollout, a node drain) must
 * not lose what the apply did. The server interrupts its runs as a cancel does while its state
 * backend still answers, so the tool saves the state and releases its lock; only then does the
 * listener close. The same for `stratum executor` beside servers on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { cliScript, eventually, storeKinds, type StoreKind } from './harness.ts';
import { binaryName, RunBench } from './run-fixtures.ts';

/** Two resources: the first is made at once, the second's provisioner is still running when the stop comes. */
const slowApply = `resource "terraform_data" "first" {
  input = "made-before-the-stop"
}

resource "terraform_data" "slow" {
  depends_on = [terraform_data.first]

  provisioner "local-exec" {
    command = "sleep 60"
  }
}
`;

/** A workspace whose apply makes `terraform_data.first`, then waits `seconds` in `terraform_data.slow`. */
async function slowWorkspace(bench: RunBench, name: string, seconds = 60): Promise<string> {
  return bench.workspaceOf(name, { 'main.tf': slowApply.replace('sleep 60', `sleep ${seconds}`) });
}

/** Starts "Plan and apply" and waits until its apply has made the first resource and waits in the second. */
async function applyUnderway(bench: RunBench, workspace: string): Promise<string> {
  const id = await bench.startJob(workspace, await bench.templateNamed('Plan and apply'));
  const apply = await bench.stepRuns(id, 1);
  await eventually(
    'the apply waits in its second resource',
    async () => assert.match(await bench.logOf(apply.attributes.output), /terraform_data\.slow: (Creating|Provisioning)/),
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  await eventually('the apply holds the state lock', async () => assert.equal(await bench.stateLocks(workspace), 1));
  return id;
}

/** The resource addresses of the workspace's current state, and the job each stored version names. */
async function storedState(bench: RunBench, workspace: string): Promise<{ addresses: string[]; jobs: unknown[] }> {
  const state = await bench.server.get(`/tfstate/v1/organization/${bench.organization}/workspace/${workspace}/state`);
  assert.equal(state.status, 200, `no state was stored: ${state.status} ${state.text}`);
  const resources = (state.body as { resources: { type: string; name: string }[] }).resources;
  const history = await bench.server.query(`select job_reference from history where workspace_id = $1 order by serial`, [workspace]);
  return { addresses: resources.map((r) => `${r.type}.${r.name}`), jobs: history.map((row) => row.job_reference) };
}

/** What every stop must leave: the job failed with the reason, its apply's work in the state, the lock free, the workspace runnable. */
async function assertKept(bench: RunBench, workspace: string, id: string): Promise<void> {
  const failed = await bench.statusOf(id, 'failed');
  assert.match(String(failed.job.attributes.comments), /stopped \(the service shut down\) during step \d+ \(.+\), which it interrupted/);
  assert.deepEqual(
    failed.steps.map((step) => step.attributes.status),
    ['completed', 'cancelled'],
  );
  const log = await bench.logOf(failed.steps[1]?.attributes.output);
  assert.match(log, /Interrupt received/, log);
  assert.doesNotMatch(log, /Error saving current state|connection refused/, log);
  const { addresses, jobs } = await storedState(bench, workspace);
  assert.ok(addresses.includes('terraform_data.first'), `the state holds ${addresses.join(', ')}`);
  assert.ok(jobs.includes(id), `the state versions name the jobs ${jobs.join(', ')}`);
  assert.equal(await bench.stateLocks(workspace), 0);
  // The lock is free: the next job of the workspace runs.
  const next = await bench.startJob(workspace, await bench.templateNamed('Plan'));
  await bench.statusOf(next, 'completed');
}

for (const kind of storeKinds) {
  describe(`a server stopped with SIGTERM during an apply (${kind}, ${binaryName})`, () => {
    let bench: RunBench;
    let restarted: RunBench | undefined;
    before(async () => {
      bench = await RunBench.start(kind, { env: { STRATUM_STEP_GRACE_SECONDS: '10' } });
    });
    after(async () => {
      await restarted?.server.stop();
      await bench.stop();
    });

    it("stores the state a tool could not upload (errored.tfstate) as the job's, and frees the lock", async () => {
      const workspace = await slowWorkspace(bench, 'refused', 4);
      const id = await applyUnderway(bench, workspace);
      // An operator force-unlocks the state under the running apply: its final upload is refused.
      const state = `/tfstate/v1/organization/${bench.organization}/workspace/${workspace}`;
      assert.equal((await bench.server.delete(`${state}/lock`)).status, 200);
      const failed = await bench.statusOf(id, 'failed');
      const log = await bench.logOf(failed.steps[1]?.attributes.output);
      assert.match(log, /wrote errored\.tfstate; Stratum stored it as the workspace's state \(serial \d+\)/, log);
      const { addresses, jobs } = await storedState(bench, workspace);
      assert.deepEqual(addresses.sort(), ['terraform_data.first', 'terraform_data.slow']);
      assert.ok(jobs.includes(id));
      assert.equal(await bench.stateLocks(workspace), 0);
    });

    it('interrupts the run while its state backend answers: the state is stored, the lock released, then the listener closes', async () => {
      const workspace = await slowWorkspace(bench, 'stopped');
      const id = await applyUnderway(bench, workspace);
      assert.equal(await bench.server.terminate(), 0, bench.server.logs.slice(-20).join('\n'));

      // In order: the stop begins with the runs, the executor interrupts them, the listener closes after.
      const messages = bench.server.logs.map((line) => String((JSON.parse(line) as { msg?: unknown }).msg));
      const at = (pattern: RegExp) => messages.findIndex((message) => pattern.test(message));
      assert.ok(at(/^stopping$/) >= 0 && at(/^executor: interrupting 1 run/) > at(/^stopping$/), messages.join('\n'));
      assert.ok(at(/^stopping the listener$/) > at(/^executor: interrupting/), messages.join('\n'));
      assert.equal(messages.at(-1), 'stopped');

      restarted = await restartOn(bench, kind);
      await assertKept(restarted, workspace, id);
    });
  });
}

if (storeKinds.includes('postgres')) {
  describe(`stratum executor stopped with SIGTERM during an apply (postgres, ${binaryName})`, () => {
    let bench: RunBench;
    let executor: ChildProcess | undefined;
    const output: string[] = [];
    before(async () => {
      bench = await RunBench.start('postgres', { env: { STRATUM_EXECUTOR: 'off' } });
      const { env } = bench.server;
      executor = spawn(process.execPath, [cliScript, 'executor'], {
        env: { ...process.env, ...env, STRATUM_EXECUTOR: 'on', STRATUM_PUBLIC_URL: bench.server.url, STRATUM_STEP_GRACE_SECONDS: '10' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      executor.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
      executor.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    });
    after(async () => {
      if (executor?.exitCode === null) executor.kill('SIGKILL');
      await bench.stop();
    });

    it('interrupts the run, whose tool saves the state through the servers, and exits 0 once it has', async () => {
      const workspace = await slowWorkspace(bench, 'executor-stopped');
      const id = await applyUnderway(bench, workspace);
      const exited = new Promise<number | null>((resolve) => executor?.once('exit', (code) => resolve(code)));
      executor?.kill('SIGTERM');
      assert.equal(await exited, 0, output.join(''));
      // No executor runs now: the job is already failed, its state kept, its lock free.
      const failed = await bench.jobOf(id);
      assert.equal(failed.job.attributes.status, 'failed', output.join(''));
      const { addresses } = await storedState(bench, workspace);
      assert.ok(addresses.includes('terraform_data.first'), `the state holds ${addresses.join(', ')}`);
      assert.equal(await bench.stateLocks(workspace), 0);
    });
  });
}

/** A server on the stopped bench's store, as a process manager starts it again. */
function restartOn(bench: RunBench, kind: StoreKind): Promise<RunBench> {
  const { env } = bench.server;
  const store = kind === 'sqlite' ? ['STRATUM_DATA_DIR'] : ['DATABASE_URL', 'STRATUM_DATA_DIR', 'STRATUM_ENCRYPTION_KEY'];
  return RunBench.start(kind, { from: bench, env: Object.fromEntries(store.map((name) => [name, env[name] ?? ''])) });
}

/**
 * A server killed while a job applies: the job must not stay running, nor its state locked. On the
 * embedded store the next start fails it at once (its one process is known gone); on PostgreSQL any
 * executor fails it once its lease lapses (30 s), since another replica may still be running it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually, storeKinds } from './harness.ts';
import { binaryName, RunBench } from './run-fixtures.ts';

for (const kind of storeKinds) {
  describe(`a run whose server was killed (${kind}, ${binaryName})`, () => {
    let bench: RunBench;
    let restarted: RunBench | undefined;
    before(async () => {
      bench = await RunBench.start(kind);
    });
    after(async () => {
      await restarted?.server.stop();
      await bench.stop();
    });

    it('is failed with the reason at the next start, its state lock released and its workspace free', async () => {
      const workspace = await bench.workspaceRunning('killed', 'sleep 20');
      const id = await bench.startJob(workspace, await bench.templateNamed('Plan and apply'));
      await bench.stepRuns(id, 1);
      // The step checks out and initializes before Terraform takes the lock: seconds on a busy machine.
      await eventually('the apply holds the state lock', async () => assert.equal(await bench.stateLocks(workspace), 1), {
        timeoutMs: 60_000,
        intervalMs: 100,
      });
      await bench.server.kill();

      const { env } = bench.server;
      const store = kind === 'sqlite' ? ['STRATUM_DATA_DIR'] : ['DATABASE_URL', 'STRATUM_DATA_DIR', 'STRATUM_ENCRYPTION_KEY'];
      restarted = await RunBench.start(kind, {
        from: bench,
        env: Object.fromEntries(store.map((name) => [name, env[name] ?? ''])),
      });
      const failed = await restarted.statusOf(id, 'failed');
      assert.match(String(failed.job.attributes.comments), /stopped before the job ended/);
      assert.deepEqual(
        failed.steps.map((step) => step.attributes.status),
        ['completed', 'failed'],
      );
      assert.equal(await restarted.stateLocks(workspace), 0);
      // What the killed run left is gone: its folder (with its variables) and every process still running in it.
      const runs = path.join(env.STRATUM_DATA_DIR ?? '', 'runs');
      assert.deepEqual(fs.readdirSync(runs), []);
      assert.deepEqual(processesIn(runs), []);
      const lastStatus = await restarted.server.get(restarted.org(`/workspace/${workspace}`));
      assert.equal(lastStatus.body.data.attributes.lastJobStatus, 'failed');

      // The workspace runs again: the state the killed apply left is still Stratum's.
      const next = await restarted.startJob(workspace, await restarted.templateNamed('Plan'));
      await restarted.statusOf(next, 'completed');
    });
  });
}

/** The processes whose working directory is inside `folder` (Linux: /proc/<pid>/cwd). */
function processesIn(folder: string): string[] {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
      return cwd.startsWith(folder) ? [`${entry}: ${cwd}`] : [];
    } catch {
      return [];
    }
  });
}

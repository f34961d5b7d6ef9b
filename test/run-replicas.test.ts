/**
 * Two servers on one PostgreSQL store, both running jobs: every job runs once, a workspace's jobs
 * one after another in order, whichever server's executor takes each.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeKinds, type TestServer } from './harness.ts';
import { binaryName, RunBench } from './run-fixtures.ts';

describe(`runs on two replicas of one PostgreSQL store (${binaryName})`, { skip: !storeKinds.includes('postgres') }, () => {
  let bench: RunBench;
  let replica: TestServer | undefined;
  before(async () => {
    bench = await RunBench.start('postgres');
    const { env } = bench.server;
    const shared = ['DATABASE_URL', 'STRATUM_ENCRYPTION_KEY', 'STRATUM_TOKEN_KEY'];
    // The second server shares the store and the key, not the data folder (its runs folder is its own).
    const second = await RunBench.start('postgres', {
      from: bench,
      env: Object.fromEntries(shared.map((name) => [name, env[name] ?? ''])),
    });
    replica = second.server;
  });
  after(async () => {
    await replica?.stop();
    await bench.stop();
  });

  it('runs every job once, and a workspace one job at a time in order', async () => {
    const planAndApply = await bench.templateNamed('Plan and apply');
    const workspaces = await Promise.all(['one', 'two', 'three'].map((name) => bench.workspaceRunning(`replicas-${name}`, 'echo applied')));
    const jobs: { workspace: string; first: string; second: string }[] = [];
    for (const workspace of workspaces) {
      const first = await bench.startJob(workspace, planAndApply);
      const second = await bench.startJob(workspace, planAndApply);
      jobs.push({ workspace, first, second });
    }
    for (const { workspace, first, second } of jobs) {
      const applied = await bench.statusOf(first, 'completed');
      // The second planned against the state the first wrote: had it run beside the first, it would have changes too.
      await bench.statusOf(second, 'noChanges');
      const plan = await bench.logOf(applied.steps[0]?.attributes.output);
      assert.equal(plan.split('Checking out').length - 1, 1, plan);
      const history = await bench.server.get(bench.org(`/workspace/${workspace}?include=history`));
      const states = (history.body.included as { type: string }[]).filter((record) => record.type === 'history');
      assert.equal(states.length, 1);
    }
  });
});

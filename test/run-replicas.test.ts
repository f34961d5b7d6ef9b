/**
 * Two servers on one PostgreSQL store, both running jobs: every job runs once, a workspace's jobs
 * one after another in order, whichever server's executor takes each, and both take some.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeKinds, type TestServer } from './harness.ts';
import { binaryName, RunBench } from './run-fixtures.ts';

describe(`runs on two replicas of one PostgreSQL store (${binaryName})`, { skip: !storeKinds.includes('postgres') }, () => {
  let bench: RunBench;
  let replica: TestServer | undefined;
  before(async () => {
    // One run at a time each: while one server applies, the next workspace's job is the other's to take.
    const oneRun = { STRATUM_EXECUTOR_RUNS: '1' };
    bench = await RunBench.start('postgres', { env: oneRun });
    const { env } = bench.server;
    const shared = ['DATABASE_URL', 'STRATUM_ENCRYPTION_KEY', 'STRATUM_TOKEN_KEY'];
    // The second server shares the store and the key, not the data folder (its runs folder is its own).
    const second = await RunBench.start('postgres', {
      from: bench,
      env: { ...oneRun, ...Object.fromEntries(shared.map((name) => [name, env[name] ?? ''])) },
    });
    replica = second.server;
  });
  after(async () => {
    await replica?.stop();
    await bench.stop();
  });

  it('runs every job once, a workspace one job at a time in order, and on both servers', async () => {
    const planAndApply = await bench.templateNamed('Plan and apply');
    const workspaces = await Promise.all(
      ['one', 'two', 'three'].map((name) => bench.workspaceRunning(`replicas-${name}`, 'sleep 3; echo applied')),
    );
    const jobs: { workspace: string; first: string; second: string }[] = [];
    const executors = new Set<string>();
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
      for (const step of [...applied.steps, ...(await bench.jobOf(second)).steps]) {
        // A step a job did not run (the apply after no changes) has no log.
        if (typeof step.attributes.output !== 'string' || step.attributes.status === 'notExecuted') continue;
        const log = await bench.logOf(step.attributes.output);
        for (const [, executor] of log.matchAll(/^Running on executor (\S+)$/gm)) executors.add(String(executor));
      }
      const history = await bench.server.get(bench.org(`/workspace/${workspace}?include=history`));
      const states = (history.body.included as { type: string }[]).filter((record) => record.type === 'history');
      assert.equal(states.length, 1);
    }
    assert.equal(executors.size, 2, [...executors].join(', '));
  });
});

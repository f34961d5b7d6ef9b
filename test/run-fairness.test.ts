/**
 * Executor slots go round the organizations: an organization whose jobs queued first does not keep
 * another's job waiting until its whole queue has run. Jobs of two organizations are queued while no
 * executor runs, then one executor with a single slot takes them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrganization, createTemplate, storeKinds } from './harness.ts';
import { RunBench } from './run-fixtures.ts';

const sleeping = Buffer.from(
  'flow:\n  - type: customScripts\n    name: Work\n    step: 100\n    commands:\n      - script: sleep 2\n',
).toString('base64');

for (const kind of storeKinds) {
  describe(`executor slots between organizations (${kind})`, () => {
    let queued: RunBench;
    let running: RunBench | undefined;
    before(async () => {
      queued = await RunBench.start(kind, { env: { STRATUM_EXECUTOR: 'off' } });
    });
    after(async () => {
      await running?.stop();
      await queued.server.stop();
    });

    it("takes a second organization's job before the rest of the first one's queue", async () => {
      const first = queued.organization;
      const second = await createOrganization(queued.server);
      const jobsOf = async (organization: string, names: string[]) => {
        queued.organization = organization;
        const template = await createTemplate(queued.server, organization, { name: 'work', tcl: sleeping });
        const jobs: string[] = [];
        for (const name of names)
          jobs.push(await queued.startJob(await queued.workspaceOf(`${organization}-${name}`, { 'main.tf': '' }), template));
        return jobs;
      };
      // The first organization queues three jobs (one workspace each, so none waits for another), then the second one.
      const [a1, a2, a3] = await jobsOf(first, ['a1', 'a2', 'a3']);
      const [b1] = await jobsOf(second, ['b1']);
      await queued.server.terminate();

      const { env } = queued.server;
      const store = kind === 'sqlite' ? ['STRATUM_DATA_DIR'] : ['DATABASE_URL', 'STRATUM_DATA_DIR', 'STRATUM_ENCRYPTION_KEY'];
      running = await RunBench.start(kind, {
        from: queued,
        env: { ...Object.fromEntries(store.map((name) => [name, env[name] ?? ''])), STRATUM_EXECUTOR_RUNS: '1' },
      });
      running.organization = second;
      await running.statusOf(String(b1), 'completed');
      running.organization = first;
      assert.equal((await running.jobOf(String(a1))).job.attributes.status, 'completed', 'the oldest job ran first');
      // The second organization's turn came after one job of the first: the first's third job has not started.
      assert.equal((await running.jobOf(String(a3))).job.attributes.status, 'pending');
      for (const job of [a2, a3]) await running.statusOf(String(job), 'completed');
    });
  });
}

/**
 * What an operator sees of runs: the listening line says whether the process runs jobs, each job
 * and step transition is one log line (job, workspace, organization, step, status, duration,
 * executor, exit code), and /metrics has the series to alert on: jobs by status, the oldest
 * pending job's wait, executors alive, job and step durations, failures by reason.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createWorkspace, eventually, metricsUrl, storeKinds } from './harness.ts';
import { binaryName, RunBench, terraformVersion } from './run-fixtures.ts';

type Line = Record<string, unknown>;

for (const kind of storeKinds) {
  describe(`what an operator sees of runs (${kind}, ${binaryName})`, () => {
    let bench: RunBench;
    const lines = (): Line[] => bench.server.logs.map((text) => JSON.parse(text) as Line);
    const scrape = async (): Promise<string> => (await fetch(metricsUrl(bench.server))).text();
    const sample = (text: string, series: string): number | undefined => {
      const escaped = series.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const match = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
      return match === null ? undefined : Number(match[1]);
    };
    before(async () => {
      bench = await RunBench.start(kind, { env: { STRATUM_METRICS_PORT: '0' } });
    });
    after(() => bench.stop());

    it('says in its listening line and /readyz that it runs jobs, and is counted alive', async () => {
      const listening = lines().find((line) => typeof line.address === 'string');
      assert.match(String(listening?.msg), /; runs up to 2 job\(s\) at once;/);
      const jobs = listening?.jobs as { jobs: string; executor: string; concurrent: number };
      assert.equal(jobs.jobs, 'on');
      assert.equal(jobs.concurrent, 2);
      const ready = (await (await fetch(`${bench.server.url}/readyz`)).json()) as { runs: unknown };
      assert.deepEqual(ready.runs, jobs);
      await eventually('the executor is counted alive', async () => assert.equal(sample(await scrape(), 'stratum_executors_alive'), 1));
    });

    it('logs each job and step transition and counts durations and failures', async () => {
      const passing = await bench.workspaceRunning('observed', 'echo observed');
      const done = await bench.statusOf(await bench.startJob(passing, await bench.templateNamed('Plan and apply')), 'completed');
      const failing = await bench.workspaceRunning('observed-failing', 'exit 3');
      const failed = await bench.statusOf(await bench.startJob(failing, await bench.templateNamed('Plan and apply')), 'failed');

      const of = (id: string) => lines().filter((line) => line.job === id);
      const executor = (lines().find((line) => typeof line.address === 'string')?.jobs as { executor: string }).executor;
      await eventually('the jobs have ended in the log', () => {
        assert.ok(of(done.job.id).some((line) => line.status === 'completed' && line.step === undefined));
        assert.ok(of(failed.job.id).some((line) => line.status === 'failed' && line.step === undefined));
      });
      const passed = of(done.job.id);
      assert.deepEqual(
        passed
          .map((line) => [line.msg, line.status, line.step ?? null])
          .map(([msg, status, step]) => `${String(status)} ${String(step)} ${String(msg).split(' ')[0]}`),
        ['queue null job', 'running 100 job', 'completed 100 job', 'running 200 job', 'completed 200 job', 'completed null job'],
      );
      for (const line of passed) {
        assert.equal(line.workspace, passing);
        assert.equal(line.organization, bench.organization);
        assert.equal(line.executor, executor);
      }
      const planEnded = passed.find((line) => line.step === 100 && line.status === 'completed');
      assert.ok(planEnded !== undefined);
      assert.equal(planEnded.type, 'terraformPlan');
      assert.equal(typeof planEnded.ms, 'number');
      assert.match(String(planEnded.msg), new RegExp(`^job ${done.job.id} step 100 \\(.+\\) completed after \\d+\\.\\d s$`));

      const applyFailed = of(failed.job.id).find((line) => line.step === 200 && line.status === 'failed');
      assert.ok(applyFailed !== undefined);
      assert.equal(applyFailed.exitCode, 1);
      assert.match(String(applyFailed.msg), /failed after \d+\.\d s \(exit code 1\)$/);
      const jobFailed = of(failed.job.id).at(-1);
      assert.ok(jobFailed !== undefined);
      assert.equal(jobFailed.reason, 'stepFailed');
      assert.match(String(jobFailed.detail), /^Step 200 \(.+\) failed: terraform apply exited with code 1\./);

      const metrics = await scrape();
      assert.equal(sample(metrics, 'stratum_job_duration_seconds_count{status="completed"}'), 1);
      assert.equal(sample(metrics, 'stratum_job_duration_seconds_count{status="failed"}'), 1);
      assert.equal(sample(metrics, 'stratum_step_duration_seconds_count{type="terraformPlan",status="completed"}'), 2);
      assert.equal(sample(metrics, 'stratum_step_duration_seconds_count{type="terraformApply",status="failed"}'), 1);
      assert.equal(sample(metrics, 'stratum_job_failures_total{reason="stepFailed"}'), 1);
    });

    it('counts the jobs waiting and how long the oldest has waited', async () => {
      // A locked workspace keeps its jobs pending, as in Terrakube.
      const source = bench.git.repository('waiting', [{ files: { 'main.tf': 'resource "terraform_data" "x" {}\n' }, tags: [] }]);
      const workspace = await createWorkspace(bench.server, bench.organization, {
        source,
        branch: 'main',
        folder: '/',
        terraformVersion,
        iacType: 'terraform',
        locked: true,
      });
      await bench.startJob(workspace, await bench.templateNamed('Plan'));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const metrics = await scrape();
      assert.equal(sample(metrics, 'stratum_jobs{status="pending"}'), 1);
      assert.equal(sample(metrics, 'stratum_jobs{status="running"}'), 0);
      assert.ok((sample(metrics, 'stratum_jobs_oldest_pending_age_seconds') ?? 0) >= 1, metrics);
    });
  });
}

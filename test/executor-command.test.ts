/**
 * `stratum executor`: jobs run in a process of their own beside servers that run none
 * (STRATUM_EXECUTOR=off), on the same PostgreSQL store; it refuses the embedded store, whose one
 * process is the server.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { stratum } from './cli-run.ts';
import { cliScript, storeKinds } from './harness.ts';
import { binaryName, RunBench } from './run-fixtures.ts';

describe(`stratum executor (${binaryName})`, () => {
  it('refuses the embedded store, and asks for STRATUM_PUBLIC_URL', () => {
    const embedded = stratum(['executor']);
    assert.equal(embedded.status, 1);
    assert.match(embedded.stderr, /needs PostgreSQL/);
  });

  if (!storeKinds.includes('postgres')) return;

  describe('beside a server that runs no jobs (postgres)', () => {
    let bench: RunBench;
    let executor: ChildProcess | undefined;
    const output: string[] = [];
    before(async () => {
      bench = await RunBench.start('postgres', { env: { STRATUM_EXECUTOR: 'off' } });
    });
    after(async () => {
      if (executor?.exitCode === null) executor.kill('SIGKILL');
      await bench.stop();
    });

    it('runs the jobs the server leaves pending, and stops on SIGTERM', async () => {
      const { env } = bench.server;
      const unreachable = stratum(['executor'], {
        DATABASE_URL: env.DATABASE_URL ?? '',
        STRATUM_ENCRYPTION_KEY: env.STRATUM_ENCRYPTION_KEY ?? '',
      });
      assert.equal(unreachable.status, 1);
      assert.match(unreachable.stderr, /STRATUM_PUBLIC_URL/);

      const workspace = await bench.workspaceRunning('executor', 'echo from-the-executor');
      const id = await bench.startJob(workspace, await bench.templateNamed('Plan and apply'));
      // The server runs no jobs: it stays pending until an executor starts.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal((await bench.jobOf(id)).job.attributes.status, 'pending');

      executor = spawn(process.execPath, [cliScript, 'executor'], {
        env: { ...process.env, ...env, STRATUM_EXECUTOR: 'on', STRATUM_PUBLIC_URL: bench.server.url },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      executor.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
      executor.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
      const done = await bench.statusOf(id, 'completed');
      assert.match(await bench.logOf(done.steps[1]?.attributes.output), /from-the-executor/);

      const exited = new Promise<number | null>((resolve) => executor?.once('exit', (code) => resolve(code)));
      executor.kill('SIGTERM');
      assert.equal(await exited, 0, output.join(''));
      assert.match(output.join(''), /executor running up to \d+ job\(s\) at once/);
    });
  });
});

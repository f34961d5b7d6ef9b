/**
 * An executor that cannot run jobs says so: a runs folder it cannot write (a read-only root file
 * system, as a Kubernetes pod runs it) or no `git` fails the start and `stratum check` with the
 * path and the fix, instead of leaving every job pending in silence; with STRATUM_EXECUTOR=off the
 * server starts and says it runs no jobs. A tool version that is neither in the tools folder nor
 * downloadable is a warning naming the path, and the jobs that need it fail before their first
 * step with that path and the download's error, their steps notExecuted.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stratum } from './cli-run.ts';
import { createDatabase, createWorkspace, storeKinds, type StoreKind } from './harness.ts';
import { RunBench } from './run-fixtures.ts';
import { startServe } from './serve-process.ts';

const mounts: string[] = [];
after(() => {
  for (const folder of mounts) spawnSync('umount', [folder]);
});

/**
 * A folder no process can write: a read-only file system where this machine lets the test mount
 * one (as root, permissions alone do not stop a write), else a file where the folder would be.
 */
function unwritableFolder(folder: string): void {
  fs.mkdirSync(folder, { recursive: true });
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', folder]).status === 0) {
    mounts.push(folder);
    return;
  }
  fs.rmdirSync(folder);
  fs.writeFileSync(folder, 'not a folder');
}

/** The settings of a store of `kind` whose data folder (PostgreSQL) or runs folder (SQLite, whose database lives there) cannot be written. */
async function unwritableRuns(kind: StoreKind): Promise<{ env: Record<string, string>; runs: string; drop: () => Promise<void> }> {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-unwritable-'));
  const env: Record<string, string> = {
    STRATUM_DATA_DIR: data,
    STRATUM_TOKEN_KEY: randomBytes(32).toString('base64url'),
    HOST: '127.0.0.1',
    PORT: '0',
  };
  if (kind === 'sqlite') {
    unwritableFolder(path.join(data, 'runs'));
    return { env, runs: path.join(data, 'runs'), drop: () => Promise.resolve() };
  }
  const database = await createDatabase();
  unwritableFolder(data);
  return {
    env: { ...env, DATABASE_URL: database.url, STRATUM_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
    runs: path.join(data, 'runs'),
    drop: database.drop,
  };
}

for (const kind of storeKinds) {
  describe(`an executor that cannot run jobs (${kind})`, () => {
    let place: Awaited<ReturnType<typeof unwritableRuns>>;
    before(async () => {
      place = await unwritableRuns(kind);
      // The store exists, migrated, as a server that ran before left it.
      if (kind === 'sqlite') assert.equal(stratum(['migrate', '--init'], place.env).status, 0);
    });
    after(() => place.drop());

    it('fails the start with the runs folder and the fix, and `stratum check` with it', () => {
      const served = stratum(['serve'], { ...place.env, STRATUM_EXECUTOR: 'on' });
      assert.equal(served.status, 1, served.stdout);
      assert.match(served.stderr, /this process cannot run jobs:/);
      assert.match(
        served.stderr,
        new RegExp(
          `runs folder: ${escape(place.runs)} cannot be written \\((EROFS: a read-only file system|(EEXIST|ENOTDIR): a file is in the way)\\)`,
        ),
      );
      assert.match(served.stderr, /fix: give the service's user a writable folder there .* or set STRATUM_EXECUTOR=off/);
      assert.doesNotMatch(served.stdout, /listening on/);

      const checked = stratum(['check'], { ...place.env, STRATUM_EXECUTOR: 'on' });
      assert.equal(checked.status, 1, checked.stdout);
      assert.match(checked.stdout, new RegExp(`FAIL  runs folder +${escape(place.runs)} `));
    });

    it('fails the start when git does not run', () => {
      const writable = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-nogit-'));
      const env = { ...place.env, STRATUM_DATA_DIR: writable, STRATUM_EXECUTOR: 'on', PATH: '/nonexistent' };
      if (kind === 'sqlite') assert.equal(stratum(['migrate', '--init'], env).status, 0);
      const served = stratum(['serve'], env);
      assert.equal(served.status, 1, served.stdout);
      assert.match(served.stderr, /git: git does not run \(spawnSync git ENOENT\): jobs check their repositories out with it/);
      assert.match(served.stderr, /fix: install git/);
    });

    it('starts with STRATUM_EXECUTOR=off, saying so in its listening line and in /readyz', async () => {
      const server = await startServe(kind, { ...place.env, STRATUM_EXECUTOR: 'off' });
      try {
        const listening = server.lines.find((line) => typeof line.address === 'string');
        assert.match(String(listening?.msg), /; runs no jobs \(STRATUM_EXECUTOR=off\);/);
        const ready = await fetch(`${server.url}/readyz`);
        assert.equal(ready.status, 200);
        assert.deepEqual(((await ready.json()) as { runs: unknown }).runs, {
          jobs: 'off',
          detail: 'STRATUM_EXECUTOR=off: `stratum executor` processes run the jobs',
        });
        const checked = stratum(['check'], { ...place.env, STRATUM_EXECUTOR: 'off' });
        assert.match(checked.stdout, /ok +runs +STRATUM_EXECUTOR=off: this server runs no jobs/);
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    });
  });

  describe(`a tool version neither present nor downloadable (${kind})`, () => {
    let bench: RunBench;
    before(async () => {
      bench = await RunBench.start(kind);
    });
    after(() => bench.stop());

    it('fails the job before its first step, naming the path and the download error, its steps notExecuted; check warns', async () => {
      const source = bench.git.repository('missing-tool', [{ files: { 'main.tf': 'resource "terraform_data" "x" {}\n' }, tags: [] }]);
      const workspace = await createWorkspace(bench.server, bench.organization, {
        source,
        branch: 'main',
        folder: '/',
        terraformVersion: '9.9.9',
        iacType: 'terraform',
      });
      const id = await bench.startJob(workspace, await bench.templateNamed('Plan and apply'));
      const failed = await bench.statusOf(id, 'failed');
      const expected = path.join(bench.tools, 'terraform', '9.9.9', 'terraform');
      assert.match(
        String(failed.job.attributes.comments),
        new RegExp(
          `^terraform 9\\.9\\.9 is not in ${escape(expected)} .*and downloading it failed: Fetching the terraform release list from http://127\\.0\\.0\\.1:9 failed`,
        ),
      );
      assert.deepEqual(
        failed.steps.map((step) => step.attributes.status),
        ['notExecuted', 'notExecuted'],
      );

      const checked = stratum(['check'], bench.server.env);
      assert.match(
        checked.stdout,
        new RegExp(`WARN  terraform 9\\.9\\.9 +terraform 9\\.9\\.9 is not in ${escape(expected)}, and it cannot be downloaded`),
      );
      assert.match(checked.stdout, /fix: put the terraform binary at /);
    });
  });
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { describeEachStore, eventually } from './harness.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The README's `sh` blocks in order, but those after a `<!-- readme-test: skip ... -->` comment. */
function walkThroughs(): string[] {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const blocks: string[] = [];
  for (const match of readme.matchAll(/(<!-- readme-test: skip[^>]*-->\n)?```sh\n([\s\S]*?)```/g)) {
    if (match[1] === undefined && match[2] !== undefined) blocks.push(match[2]);
  }
  return blocks;
}

describeEachStore("the README's walk-throughs", (context) => {
  it('run top to bottom as written, and every request answers what the README says', async () => {
    const blocks = walkThroughs();
    assert.ok(blocks.length >= 4, `found ${blocks.length} blocks`);
    const script = blocks.join('\n').replaceAll('http://localhost:8080', context.server.url);
    // Each curl makes one request; an error the README expects is announced in a comment (# 404 ...).
    const requests = script.match(/\bcurl\b/g)?.length ?? 0;
    const announced = [...script.matchAll(/#\s*(4\d\d)\b/g)].map((m) => Number(m[1])).sort();
    const before = context.server.logs.length;
    const result = spawnSync('bash', ['-c', `set -eo pipefail\n${script}`], {
      cwd: root,
      env: { ...process.env, ...context.server.env, DATABASE_URL: context.server.env.DATABASE_URL ?? '' },
      encoding: 'utf8',
      timeout: 180000,
    });
    assert.equal(result.status, 0, `the walk-through stopped: ${result.stderr}\n${result.stdout.slice(-2000)}`);
    const lines = await eventually(
      'every request of the walk-through in the log',
      () => {
        const logged = context.server.logs
          .slice(before)
          .map((text) => JSON.parse(text) as Record<string, unknown>)
          .filter((line) => line.msg === 'request');
        assert.equal(logged.length, requests);
        return logged;
      },
      { timeoutMs: 10000 },
    );
    const failed = lines.filter((line) => Number(line.status) >= 400);
    assert.deepEqual(
      failed.map((line) => Number(line.status)).sort(),
      announced,
      `unannounced errors: ${JSON.stringify(failed.map((l) => `${String(l.method)} ${String(l.path)} ${String(l.status)} ${String(l.code)}`))}`,
    );
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
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

/**
 * What the README says a curl answers, from the comment that ends its command: an HTTP status
 * (`# 404 ...`), or a JSON value the answer must contain (`# {"groups":["deployers"]}`).
 */
interface Expectation {
  command: string;
  status: number | undefined;
  contains: unknown;
}

function expectations(block: string): Expectation[] {
  // A command continued with a trailing backslash is one command.
  const commands = block.replace(/\\\n/g, ' ').split('\n');
  const found: Expectation[] = [];
  for (const command of commands) {
    const count = command.match(/\bcurl\b/g)?.length ?? 0;
    const comment = /\s#\s*(.*)$/.exec(command)?.[1]?.trim() ?? '';
    for (let i = 0; i < count; i++) {
      const status = /^(\d{3})\b/.exec(comment)?.[1];
      const json = /^[[{]/.test(comment) ? (JSON.parse(comment) as unknown) : undefined;
      found.push({ command: command.trim(), status: status === undefined ? undefined : Number(status), contains: json });
    }
  }
  return found;
}

/** Whether `value` holds everything `part` holds: the same scalars, every member and element of it. */
function contains(value: unknown, part: unknown): boolean {
  if (Array.isArray(part)) return Array.isArray(value) && part.every((element) => value.some((v) => contains(v, element)));
  if (part !== null && typeof part === 'object') {
    if (value === null || typeof value !== 'object') return false;
    return Object.entries(part).every(([key, member]) => contains((value as Record<string, unknown>)[key], member));
  }
  return value === part;
}

/** The root connections of a GraphQL answer that came back empty: a walk-through that read or wrote nothing. */
function emptyRoots(body: { data?: Record<string, { edges?: unknown[] } | null> | null }): string[] {
  return Object.entries(body.data ?? {})
    .filter(([, connection]) => (connection?.edges?.length ?? 0) === 0)
    .map(([field]) => field);
}

describeEachStore("the README's walk-throughs", (context) => {
  it('each runs on its own after the token block, and every call answers what the README says', async () => {
    const blocks = walkThroughs();
    assert.ok(blocks.length >= 5, `found ${blocks.length} blocks`);
    // The first block mints the token and names the API: every walk-through starts from it.
    const [prelude = '', ...rest] = blocks;
    const env = { ...process.env, ...context.server.env, DATABASE_URL: context.server.env.DATABASE_URL ?? '' };
    const localize = (text: string) => text.replaceAll('http://localhost:8080', context.server.url);
    for (const block of rest) {
      const answers = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-readme-'));
      // Every curl's output is kept, numbered in the order the calls ran (subshells included).
      const recording = `curl() { local n=$(( $(cat "${answers}/count" 2>/dev/null || echo 0) + 1 )); echo $n > "${answers}/count"; command curl "$@" | tee "${answers}/$n"; }`;
      const before = context.server.logs.length;
      const result = spawnSync('bash', ['-c', `set -eo pipefail\n${recording}\n${localize(prelude)}\n${localize(block)}`], {
        cwd: root,
        env,
        encoding: 'utf8',
        timeout: 180000,
      });
      const title = block.split('\n')[0];
      assert.equal(result.status, 0, `the walk-through starting "${title}" stopped: ${result.stderr}\n${result.stdout.slice(-2000)}`);
      const expected = expectations(block);
      const requests = await eventually(
        'every request of the walk-through in the log',
        () => {
          const logged = context.server.logs
            .slice(before)
            .map((text) => JSON.parse(text) as Record<string, unknown>)
            .filter((line) => line.msg === 'request');
          assert.equal(logged.length, expected.length, `the walk-through starting "${title}" made another number of requests`);
          return logged;
        },
        { timeoutMs: 10000 },
      );
      expected.forEach((expectation, index) => {
        const request = requests[index] ?? {};
        const answer = fs.readFileSync(path.join(answers, String(index + 1)), 'utf8');
        const where = `${expectation.command}\n  answered ${String(request.status)}: ${answer.slice(0, 500)}`;
        const status = Number(request.status);
        if (expectation.status !== undefined) assert.equal(status, expectation.status, where);
        else assert.ok(status < 400, `an error the README does not announce: ${where}`);
        if (expectation.contains !== undefined) assert.ok(contains(JSON.parse(answer), expectation.contains), where);
        if (String(request.path).startsWith('/graphql')) {
          const body = JSON.parse(answer) as { errors?: unknown; data?: Record<string, { edges?: unknown[] } | null> | null };
          assert.equal(body.errors, undefined, `a GraphQL error: ${where}`);
          // A deletion answers no records, as Elide's does.
          if (!/op: (DELETE|REMOVE)/.test(expectation.command)) {
            assert.deepEqual(emptyRoots(body), [], `a GraphQL call that read or wrote nothing: ${where}`);
          }
        }
      });
      fs.rmSync(answers, { recursive: true, force: true });
    }
  });
});

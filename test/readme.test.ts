import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { describeEachStore, eventually, type StoreContext } from './harness.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

/** A README `sh` block, and whether it runs Terraform (a `<!-- readme-test: terraform ... -->` comment before it). */
interface WalkThrough {
  text: string;
  terraform: boolean;
}

/** The README's `sh` blocks in order, but those after a `<!-- readme-test: skip ... -->` comment. */
function walkThroughs(): WalkThrough[] {
  const blocks: WalkThrough[] = [];
  for (const match of readme.matchAll(/(?:<!-- readme-test: (skip|terraform)[^>]*-->\n)?```sh\n([\s\S]*?)```/g)) {
    if (match[1] !== 'skip' && match[2] !== undefined) blocks.push({ text: match[2], terraform: match[1] === 'terraform' });
  }
  return blocks;
}

const blocks = walkThroughs();
/** The Terraform version the walk-throughs' workspaces name: the server finds the binary on PATH under it. */
const terraformVersion = /"terraformVersion":"(\d+\.\d+\.\d+)"/.exec(
  blocks
    .filter((block) => block.terraform)
    .map((block) => block.text)
    .join('\n'),
)?.[1];
const terraform = (process.env.PATH ?? '')
  .split(path.delimiter)
  .map((folder) => path.join(folder, 'terraform'))
  .find((file) => fs.existsSync(file));
if (terraform === undefined && process.env.CI !== undefined) throw new Error('terraform is not on PATH: CI has it');

/**
 * What the README says a curl answers, from the comment that ends its command: an HTTP status
 * (`# 404 ...`), or a JSON value the answer must contain (`# {"groups":["deployers"]}`).
 */
interface Expectation {
  command: string;
  /** How many curls the command holds: each runs at least once (a poll, or a function called again, more often). */
  curls: number;
  status: number | undefined;
  contains: unknown;
}

/** The commands of a block with what their curls must answer, and the command each of its lines belongs to. */
function expectations(block: string): { commands: Expectation[]; commandOfLine: number[] } {
  const commands: Expectation[] = [];
  const commandOfLine: number[] = [];
  let pending = '';
  for (const line of block.split('\n')) {
    commandOfLine.push(commands.length);
    // A command continued with a trailing backslash is one command.
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const command = pending + line;
    pending = '';
    const comment = /\s#\s*(.*)$/.exec(command)?.[1]?.trim() ?? '';
    const status = /^(\d{3})\b/.exec(comment)?.[1];
    commands.push({
      command: command.trim(),
      curls: command.match(/\bcurl\b/g)?.length ?? 0,
      status: status === undefined ? undefined : Number(status),
      contains: /^[[{]/.test(comment) ? (JSON.parse(comment) as unknown) : undefined,
    });
  }
  return { commands, commandOfLine };
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

/**
 * Runs each block after the first (which mints the token and names the API) in a shell of its own,
 * and checks every curl it made against the server's log and the README's comment on its command.
 * Each curl is sent with a request id of its own, so the requests of the server's own runs (their
 * Terraform reaching the state backend) and of Terraform's registry calls are not counted.
 */
async function runBlocks(context: StoreContext, prelude: string, walks: WalkThrough[]): Promise<void> {
  const env = { ...process.env, ...context.server.env, DATABASE_URL: context.server.env.DATABASE_URL ?? '', CHECKPOINT_DISABLE: '1' };
  const localize = (text: string) => text.replaceAll('http://localhost:8080', context.server.url);
  for (const [index, { text: block }] of walks.entries()) {
    const answers = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-readme-'));
    const tag = `readme-${String(Date.now())}-${String(index)}`;
    // Every curl's output is kept, numbered in the order the calls ran (subshells included), with
    // the line it was called from.
    const recording = [
      `curl() { local n=$(( $(cat "${answers}/count" 2>/dev/null || echo 0) + 1 )); echo $n > "${answers}/count";`,
      `echo "$n \${BASH_LINENO[0]}" >> "${answers}/calls"; command curl -H "X-Request-Id: ${tag}-$n" "$@" | tee "${answers}/$n"; }`,
    ].join(' ');
    const before = `set -eo pipefail\n${recording}\n${localize(prelude)}\n`;
    const firstLine = before.split('\n').length;
    const title = block.split('\n')[0];
    const result = spawnSync('bash', ['-c', `${before}${localize(block)}`], { cwd: root, env, encoding: 'utf8', timeout: 240000 });
    assert.equal(result.status, 0, `the walk-through starting "${title}" stopped: ${result.stderr}\n${result.stdout.slice(-2000)}`);
    const { commands, commandOfLine } = expectations(block);
    const calls = fs
      .readFileSync(path.join(answers, 'calls'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const [n = '', lineNumber = ''] = line.split(' ');
        const command = commandOfLine[Number(lineNumber) - firstLine];
        assert.ok(command !== undefined, `the walk-through starting "${title}" called curl from line ${lineNumber}, outside itself`);
        return { n, command };
      });
    commands.forEach((command, at) => {
      const made = calls.filter((call) => call.command === at).length;
      assert.ok(made >= command.curls, `${command.command}\n  ran ${String(made)} of its ${String(command.curls)} curls`);
    });
    const requests = await eventually(
      'every request of the walk-through in the log',
      () => {
        const logged = new Map<string, Record<string, unknown>>();
        for (const text of context.server.logs) {
          const line = JSON.parse(text) as Record<string, unknown>;
          if (line.msg === 'request' && typeof line.reqId === 'string' && line.reqId.startsWith(`${tag}-`)) logged.set(line.reqId, line);
        }
        const missing = calls.filter((call) => !logged.has(`${tag}-${call.n}`));
        assert.deepEqual(missing, [], `the walk-through starting "${title}" made requests the server did not log`);
        return logged;
      },
      { timeoutMs: 10000 },
    );
    for (const call of calls) {
      const expectation = commands[call.command];
      assert.ok(expectation !== undefined);
      const request = requests.get(`${tag}-${call.n}`) ?? {};
      const answer = fs.readFileSync(path.join(answers, call.n), 'utf8');
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
    }
    fs.rmSync(answers, { recursive: true, force: true });
  }
}

/** Where the server finds Terraform: the one on PATH, under the version the walk-throughs name. */
const tools = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-readme-tools-'));
if (terraform !== undefined && terraformVersion !== undefined) {
  fs.mkdirSync(path.join(tools, 'terraform', terraformVersion), { recursive: true });
  fs.symlinkSync(terraform, path.join(tools, 'terraform', terraformVersion, 'terraform'));
}
after(() => fs.rmSync(tools, { recursive: true, force: true }));

describeEachStore("the README's walk-throughs", { env: { STRATUM_EXECUTOR: 'on', STRATUM_TOOLS_DIR: tools } }, (context) => {
  const [prelude, ...rest] = blocks;

  it('each runs on its own after the token block, and every call answers what the README says', async () => {
    assert.ok(rest.length >= 5, `found ${String(blocks.length)} blocks`);
    await runBlocks(
      context,
      prelude?.text ?? '',
      rest.filter((block) => !block.terraform),
    );
  });

  it(
    'so do the walk-throughs that run Terraform: a workspace run from start to end, a run on an agent, a module used from the registry',
    { skip: terraform === undefined ? 'terraform is not on PATH' : false },
    async () => {
      const terraformBlocks = rest.filter((block) => block.terraform);
      assert.equal(terraformBlocks.length, 3, 'the run, agent and registry walk-throughs');
      assert.ok(terraformVersion !== undefined, 'the run walk-through names its Terraform version');
      await runBlocks(context, prelude?.text ?? '', terraformBlocks);
    },
  );
});

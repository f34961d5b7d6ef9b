/**
 * Agents (`stratum agent`): executors that reach the service over HTTP with an agent token and hold
 * neither the database nor a key. A pool's token takes only the jobs of the workspaces routed to
 * its pool, a token of no pool those routed to none; the runner API refuses anyone else, and scopes
 * every call of a token to the jobs its agents hold. On both stores, the embedded one included.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stratumAsync } from './cli-run.ts';
import { assertError, cliScript, createRecord, storeKinds, type Response } from './harness.ts';
import { binaryName, RunBench } from './run-fixtures.ts';
import { isStandIn, standIn } from './terraform-binary.ts';

/** An agent process with nothing of the server's but its URL and the token. */
class AgentProcess {
  readonly output: string[] = [];
  private readonly child: ChildProcess;
  private readonly dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-agent-'));

  constructor(bench: RunBench, token: string) {
    const { DATABASE_URL: _database, STRATUM_ENCRYPTION_KEY: _key, STRATUM_TOKEN_KEY: _signing, ...inherited } = process.env;
    this.child = spawn(process.execPath, [cliScript, 'agent'], {
      env: {
        ...inherited,
        STRATUM_DATA_DIR: this.dataDir,
        STRATUM_PUBLIC_URL: bench.server.url,
        STRATUM_AGENT_TOKEN: token,
        STRATUM_TOOLS_DIR: bench.tools,
        STRATUM_STEP_GRACE_SECONDS: '2',
        // Checkouts happen on the agent, under its own outbound policy: the test's git server is on loopback.
        STRATUM_OUTBOUND_ALLOW: bench.server.env.STRATUM_OUTBOUND_ALLOW ?? '',
        ...(isStandIn ? { STRATUM_RUN_READ_ONLY: path.resolve(path.dirname(standIn), '..', '..') } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (chunk: Buffer) => this.output.push(chunk.toString()));
    this.child.stderr?.on('data', (chunk: Buffer) => this.output.push(chunk.toString()));
  }

  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    this.child.kill('SIGTERM');
    const code = await exited;
    fs.rmSync(this.dataDir, { recursive: true, force: true });
    return code;
  }
}

/** Routes a workspace's jobs to an agent pool, as the web UI's workspace settings do. */
async function routeTo(bench: RunBench, workspace: string, pool: string): Promise<void> {
  const patched = await bench.server.request('PATCH', bench.org(`/workspace/${workspace}`), {
    body: { data: { type: 'workspace', id: workspace, relationships: { agent: { data: { type: 'agent', id: pool } } } } },
  });
  assert.equal(patched.status, 204, patched.text);
}

for (const kind of storeKinds) {
  describe(`agents (${kind}, ${binaryName})`, () => {
    let bench: RunBench;
    let pool = '';
    let poolToken = '';
    let openToken = '';
    const agents: AgentProcess[] = [];
    const console = (args: string[]) => stratumAsync(args, bench.server.env);
    const call = (token: string | null, name: string, args: unknown[] | string): Promise<Response> =>
      bench.server.request('POST', `/runner/v1/${name}`, {
        token,
        ...(typeof args === 'string' ? { raw: args } : { body: { args } }),
        headers: { 'content-type': 'application/json' },
      });

    before(async () => {
      // The servers run no jobs themselves: agents run every one.
      bench = await RunBench.start(kind, { env: { STRATUM_EXECUTOR: 'off' } });
      pool = await createRecord(bench.server, bench.org('/agent'), 'agent', { name: 'private-network', url: 'http://agents.internal' });
      const issued = await console(['agent-token', 'create', '--pool', pool, '--description', 'the private network']);
      assert.equal(issued.status, 0, issued.stderr);
      poolToken = issued.stdout.trim();
      const open = await console(['agent-token', 'create', '--ttl', '1d']);
      assert.equal(open.status, 0, open.stderr);
      openToken = open.stdout.trim();
    });
    after(async () => {
      for (const agent of agents) await agent.stop();
      await (bench as RunBench | undefined)?.stop();
    });

    it('refuses every caller but a live agent token, and bodies that are not the call', async () => {
      assert.match(poolToken, /^stratum-agent\.[0-9a-f-]{36}\.[\w-]{43}$/);
      assertError(await call(null, 'claim', ['x', 1000]), 401);
      assertError(await call(bench.server.adminToken, 'claim', ['x', 1000]), 401);
      assertError(
        await call(
          poolToken.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A')),
          'claim',
          ['x', 1000],
        ),
        401,
      );
      assertError(await call(`stratum-agent.${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.secret`, 'claim', ['x', 1000]), 401);
      assertError(await call(poolToken, 'claim', '{"args": ['), 400);
      assertError(await call(poolToken, 'claim', ['x']), 400);
      assertError(await call(poolToken, 'claim', ['x', 1000, 'more']), 400);
      assertError(await call(poolToken, 'claim', ['x', '1000']), 400);
      assertError(await call(poolToken, 'claim', { args: ['x', 1000], extra: true } as unknown as string), 400);
      assertError(await call(poolToken, 'claim', ['bad name/../', 1000]), 403);
      // A log longer than an executor keeps (STRATUM_STEP_LOG_KIB, 1024 by default) is refused before anything is read.
      const longLog = { text: 'x'.repeat(1024 * 1024 + 64 * 1024 + 1), trimmed: 0, finished: false };
      assertError(await call(poolToken, 'writeLog', ['any-step', longLog]), 400);
      assertError(await call(poolToken, 'nothing', []), 404);
      const wrongType = await bench.server.request('POST', '/runner/v1/claim', {
        token: poolToken,
        raw: 'args=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assertError(wrongType, 415);
      // An agent token reaches nothing of the API: it is in no group.
      assert.equal((await bench.server.request('GET', bench.org(), { token: poolToken })).status, 401);
    });

    it("takes only its own pool's jobs, runs them without the server's secrets, and no call reaches another's", async () => {
      // The run looks for the agent's token in its environment and in every process's it can see.
      const routed = await bench.workspaceRunning(
        'routed',
        'echo from-the-agent; echo token-in-env=$(env | grep -c STRATUM_AGENT_TOKEN); echo token-in-proc=$(cat /proc/[0-9]*/environ 2>/dev/null | grep -a -c STRATUM_AGENT_TOKEN)',
      );
      await routeTo(bench, routed, pool);
      const unrouted = await bench.workspaceRunning('unrouted', 'echo from-the-open-agent');
      const template = await bench.templateNamed('Plan and apply');
      const other = await bench.startJob(unrouted, template);

      // The pool's token sees no job while only the unrouted one waits.
      const none = await call(poolToken, 'claim', ['probe', 30_000]);
      assert.equal(none.status, 200, none.text);
      assert.deepEqual(none.body, { result: null });

      // Nothing of a job it does not hold, whatever it names.
      const { steps } = await bench.jobOf(other);
      const step = String(steps[0]?.id);
      assertError(await call(poolToken, 'writeLog', [step, { text: 'forged', trimmed: 0, finished: true }]), 403);
      assertError(await call(poolToken, 'stateCredential', [other]), 403);
      assertError(await call(poolToken, 'readPlan', [other]), 403);
      assertError(await call(poolToken, 'savePlan', [other, 'AAAA']), 403);
      assertError(await call(poolToken, 'lockWorkspace', [other]), 403);
      assertError(
        await call(poolToken, 'keepState', [
          { jobId: other, organizationId: bench.organization, workspaceId: unrouted, workdir: '/tmp' },
          '{}',
        ]),
        403,
      );
      assert.deepEqual((await call(poolToken, 'renew', [other, 'probe', 30_000])).body, { result: 'lost' });
      assert.deepEqual((await call(poolToken, 'jobEnded', [other, 'probe', { status: 'failed', reason: 'forged' }])).body, {
        result: false,
      });
      assert.deepEqual((await call(poolToken, 'fireSchedules', ['2999-01-01T00:00:00.000Z'])).body, { result: [] });

      const id = await bench.startJob(routed, template);
      const poolAgent = new AgentProcess(bench, poolToken);
      agents.push(poolAgent);
      const done = await bench.statusOf(id, 'completed');
      const log = await bench.logOf(done.steps[1]?.attributes.output);
      assert.match(log, /from-the-agent/);
      assert.match(log, /token-in-env=0/);
      assert.match(log, /token-in-proc=0/);
      // Its run reached the state backend at the service's URL with its job's credential.
      assert.equal((await bench.server.get(bench.org(`/workspace/${routed}/history`))).status, 200);
      assert.equal((await bench.jobOf(other)).job.attributes.status, 'pending', 'the pool agent left the unrouted job alone');

      const openAgent = new AgentProcess(bench, openToken);
      agents.push(openAgent);
      const otherDone = await bench.statusOf(other, 'completed');
      assert.match(await bench.logOf(otherDone.steps[1]?.attributes.output), /from-the-open-agent/);

      assert.equal(await poolAgent.stop(), 0, poolAgent.output.join(''));
      assert.equal(await openAgent.stop(), 0, openAgent.output.join(''));
      assert.match(poolAgent.output.join(''), /agent running up to \d+ job\(s\) at once/);
      assert.doesNotMatch(poolAgent.output.join(''), /DATABASE_URL or STRATUM_ENCRYPTION_KEY is set/);
    });

    it('lists and revokes tokens at the console, never showing them; a revoked token is refused at once', async () => {
      const listed = await console(['agent-token', 'list', '--json']);
      assert.equal(listed.status, 0, `${listed.stderr}${listed.stdout}`);
      const views = JSON.parse(listed.stdout) as {
        id: string;
        pool: string | null;
        organizationId: string | null;
        lastUsedAt: string | null;
      }[];
      const poolId = poolToken.split('.')[1] ?? '';
      const view = views.find((one) => one.id === poolId);
      assert.ok(view, 'the pool token is listed');
      assert.equal(view.pool, pool);
      assert.equal(view.organizationId, bench.organization);
      assert.notEqual(view.lastUsedAt, null);
      assert.ok(!listed.stdout.includes(poolToken.split('.')[2] ?? '-'), 'no secret listed');

      const revoked = await console(['agent-token', 'revoke', poolId]);
      assert.equal(revoked.status, 0, revoked.stderr);
      assertError(await call(poolToken, 'claim', ['probe', 30_000]), 401);
      assert.equal((await console(['agent-token', 'revoke', 'no-such-token'])).status, 1);
      const unknownPool = await console(['agent-token', 'create', '--pool', 'no-such-pool']);
      assert.equal(unknownPool.status, 1);
      assert.match(unknownPool.stderr, /no agent pool no-such-pool/);

      // Issue and revoke are in the organization's audit trail, the token never.
      const trail = await bench.server.get(`${bench.org('/auditEvent')}?filter[audit_event]=recordType=='agent token'`);
      assert.equal(trail.status, 200, trail.text);
      const actions = (trail.body as { data: { attributes: { action: string } }[] }).data.map((event) => event.attributes.action).sort();
      assert.deepEqual(actions, ['issue', 'revoke']);
      assert.ok(!trail.text.includes(poolToken.split('.')[2] ?? '-'));
    });

    it('an agent refuses to start without its token or the service, saying which', async () => {
      const missing = await stratumAsync(['agent'], { STRATUM_PUBLIC_URL: bench.server.url });
      assert.equal(missing.status, 1);
      assert.match(missing.stderr, /STRATUM_AGENT_TOKEN/);
      const refused = await stratumAsync(['agent'], {
        STRATUM_PUBLIC_URL: bench.server.url,
        STRATUM_AGENT_TOKEN: poolToken,
        STRATUM_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-agent-')),
      });
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, /could not start.*401|not a live agent token/);
    });
  });
}

if (storeKinds.includes('sqlite'))
  describe(`an agent beside the embedded store's own executor (${binaryName})`, () => {
    let bench: RunBench;
    let agent: AgentProcess | undefined;
    before(async () => {
      bench = await RunBench.start('sqlite');
    });
    after(async () => {
      await agent?.stop();
      await (bench as RunBench | undefined)?.stop();
    });

    it("runs its pool's job to the end while the server's executor, alone on its store, runs the others", async () => {
      const pool = await createRecord(bench.server, bench.org('/agent'), 'agent', { name: 'remote', url: 'http://agents.internal' });
      const issued = await stratumAsync(['agent-token', 'create', '--pool', pool], bench.server.env);
      assert.equal(issued.status, 0, issued.stderr);
      // Longer than the server's executor's polls: alone on its store, it once took every job another executor held for its own stopped one's.
      const routed = await bench.workspaceRunning('slow', 'sleep 5; echo from-the-remote-agent');
      await routeTo(bench, routed, pool);
      const local = await bench.workspaceRunning('local', 'echo from-the-server');
      const template = await bench.templateNamed('Plan and apply');
      const remoteJob = await bench.startJob(routed, template);
      const localJob = await bench.startJob(local, template);
      agent = new AgentProcess(bench, issued.stdout.trim());
      const remote = await bench.statusOf(remoteJob, 'completed');
      assert.match(await bench.logOf(remote.steps[1]?.attributes.output), /from-the-remote-agent/);
      const here = await bench.statusOf(localJob, 'completed');
      assert.match(await bench.logOf(here.steps[1]?.attributes.output), /from-the-server/);
      assert.equal(await agent.stop(), 0, agent.output.join(''));
    });
  });

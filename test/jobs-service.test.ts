/**
 * The Jobs service without a server process: the transition table on its own, and the runner
 * port an executor speaks, in process and through JSON, on a real store of each kind. Records are
 * made through the engine's session as a request would make them; the executor's side is played
 * by the test, call by call.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serviceCaller } from '../src/auth/caller.ts';
import { mintStateCredential } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { ApiError } from '../src/errors.ts';
import { buildCore, type Core } from '../src/core.ts';
import { noIncludes, type PathStep, type RecordAddress, type Session } from '../src/engine/index.ts';
import { signingKeyFor } from '../src/keys.ts';
import { createLogger } from '../src/log.ts';
import { nextFireTime } from '../src/quartz/schedule.ts';
import { registry, runRecords } from '../src/resources/index.ts';
import { jobTransitions, movesTo, stepMayMove, transitionOf, unfinishedStatuses } from '../src/runs/job-statuses.ts';
import { jobCaps } from '../src/runs/job-changes.ts';
import { Jobs } from '../src/runs/jobs.ts';
import { throughJson, type ClaimedJob, type JobSpec, type RunnerPort } from '../src/runs/runner-port.ts';
import { openSecretCipher } from '../src/secrets/encryption-key.ts';
import { openStore, type Store } from '../src/store/database.ts';
import { approvedUnheld, heldJobs, releaseEndedHolds, takeablePending } from '../src/runs/claim-queries.ts';
import { compileOnly } from './compile-only.ts';
import { createDatabase, storeKinds } from './harness.ts';

describe('the job transition table', () => {
  it('lets a client approve and reject only a job waiting for its approval, with approveJob, and cancel any unfinished job', () => {
    assert.deepEqual(movesTo('client', 'approved'), ['waitingApproval']);
    assert.deepEqual(movesTo('client', 'rejected'), ['waitingApproval']);
    assert.equal(transitionOf('client', 'waitingApproval', 'approved')?.needs, 'approveJob');
    assert.equal(transitionOf('client', 'waitingApproval', 'rejected')?.needs, 'approveJob');
    assert.deepEqual([...movesTo('client', 'cancelled')].sort(), [...unfinishedStatuses].sort());
    assert.equal(transitionOf('client', 'running', 'cancelled')?.needs, undefined);
    // A client never sets what the executor finds.
    for (const to of ['queue', 'running', 'completed', 'noChanges', 'failed', 'waitingApproval'] as const)
      assert.deepEqual(movesTo('client', to), [], to);
  });

  it('lets the executor take, run, pause and end a job, and never move one that ended or approve one', () => {
    assert.ok(transitionOf('executor', 'pending', 'queue'));
    assert.ok(transitionOf('executor', 'approved', 'running'));
    assert.ok(transitionOf('executor', 'running', 'waitingApproval'));
    assert.ok(transitionOf('executor', 'running', 'running'), 'noting what it found keeps a running job running');
    assert.equal(transitionOf('executor', 'waitingApproval', 'approved'), undefined);
    assert.equal(transitionOf('executor', 'pending', 'running'), undefined);
    for (const ended of ['completed', 'noChanges', 'failed', 'rejected', 'cancelled'] as const) {
      for (const to of ['running', 'failed', 'completed', ended] as const)
        assert.equal(transitionOf('executor', ended, to), undefined, `${ended} > ${to}`);
    }
  });

  it('lets recovery only fail a job an executor held, and a start only make a job pending or failed', () => {
    const recovery = jobTransitions.filter((t) => t.by === 'recovery');
    assert.deepEqual([...new Set(recovery.map((t) => t.to))], ['failed']);
    assert.deepEqual(recovery.map((t) => t.from).sort(), ['approved', 'queue', 'running']);
    assert.equal(transitionOf('recovery', 'waitingApproval', 'failed'), undefined);
    const starts = jobTransitions.filter((t) => t.by === 'start');
    assert.deepEqual(
      starts.map((t) => [t.from, t.to]),
      [
        [null, 'pending'],
        [null, 'failed'],
      ],
    );
    assert.equal(transitionOf('start', null, 'running'), undefined);
  });

  it('moves a step only forward: a step a cancel ended stays so', () => {
    assert.ok(stepMayMove('pending', 'running'));
    assert.ok(stepMayMove('running', 'completed'));
    assert.ok(stepMayMove('waitingApproval', 'completed'));
    assert.equal(stepMayMove('cancelled', 'completed'), false);
    assert.equal(stepMayMove('completed', 'running'), false);
    assert.equal(stepMayMove('notExecuted', 'running'), false);
  });
});

describe('the claim and recovery SQL', () => {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    it(`is the reviewed SQL on ${dialect}`, () => {
      const db = compileOnly(dialect);
      const queries = {
        releaseEndedHolds: releaseEndedHolds(db, runRecords),
        approvedUnheld: approvedUnheld(db, runRecords, null),
        takeablePending: takeablePending(db, runRecords, null),
        heldJobs: heldJobs(db),
      };
      const actual = Object.entries(queries)
        .map(([name, query]) => {
          const { sql, parameters } = query.compile();
          return `-- ${name} ${JSON.stringify(parameters)}\n${sql}\n`;
        })
        .join('\n');
      const file = path.join(import.meta.dirname, 'snapshots', `claim-${dialect}.sql`);
      if (process.env.UPDATE_SNAPSHOTS === '1') fs.writeFileSync(file, actual);
      assert.equal(actual, fs.readFileSync(file, 'utf8'));
    });
  }
});

const planApproveApply = Buffer.from(
  'flow:\n  - type: "terraformPlan"\n    name: "Plan"\n    step: 100\n  - type: "approval"\n    name: "Approve"\n    step: 150\n    team: "ops"\n  - type: "terraformApply"\n    name: "Apply"\n    step: 200\n',
).toString('base64');

for (const kind of storeKinds) {
  describe(`the runner port, in process through JSON (${kind})`, () => {
    let folder: string;
    let store: Store;
    let core: Core;
    let session: Session;
    let port: RunnerPort;
    let jobs: Jobs;
    let organization: string;
    let workspace: string;
    let template: string;
    let dropDatabase: (() => Promise<void>) | undefined;
    const resource = (type: string) => {
      const found = registry.get(type);
      assert.ok(found, type);
      return found;
    };
    const create = async (type: string, ancestors: readonly PathStep[], attributes: Record<string, unknown>, links = {}) => {
      const created = await session.create(
        { resource: resource(type), ancestors },
        () => ({
          attributes,
          relationships: Object.fromEntries(Object.entries(links).map(([name, id]) => [name, { kind: 'record' as const, id: String(id) }])),
        }),
        noIncludes,
      );
      return String(created.row.id);
    };
    const inOrganization = () => [{ resource: resource('organization'), id: organization }];
    const jobAt = (id: string): RecordAddress => ({ resource: resource('job'), ancestors: inOrganization(), id });
    const jobRow = (id: string) => session.find(jobAt(id));
    const startJob = () => create('job', inOrganization(), { templateReference: template }, { workspace });
    const disable = (workspaceId: string, schedule: string) =>
      session.update(
        {
          resource: resource('schedule'),
          ancestors: [...inOrganization(), { resource: resource('workspace'), id: workspaceId }],
          id: schedule,
        },
        () => ({ attributes: { enabled: false }, relationships: {} }),
      );
    const claim = async (executor: string, leaseMs = 60_000): Promise<ClaimedJob & { spec: JobSpec }> => {
      const claimed = await port.claim(executor, leaseMs);
      assert.ok(claimed !== undefined && 'spec' in claimed, JSON.stringify(claimed));
      return claimed;
    };

    before(async () => {
      folder = await mkdtemp(path.join(tmpdir(), 'stratum-jobs-'));
      const env: Record<string, string> = { STRATUM_DATA_DIR: folder, STRATUM_ADMIN_GROUP: 'STRATUM_ADMIN' };
      if (kind === 'postgres') {
        const database = await createDatabase();
        env.DATABASE_URL = database.url;
        env.STRATUM_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');
        dropDatabase = database.drop;
      }
      const config = loadConfig(env);
      store = await openStore(config);
      const cipher = await openSecretCipher(config, store);
      core = buildCore({ config, store, cipher, signingKey: await signingKeyFor(config, { store, cipher }), log: createLogger('silent') });
      session = core.engine.open(serviceCaller, { transport: 'service' });
      jobs = new Jobs({
        work: { executor: core.engine.work('executor'), scheduler: core.engine.work('scheduler') },
        records: runRecords,
        next: nextFireTime,
        scheduleMinIntervalMs: 60_000,
        stateCredential: ({ organizationId, workspaceId, jobId }) =>
          mintStateCredential(core.signer, { organizationId, workspaceId, jobReference: jobId }, 600),
        keepState: () => Promise.reject(new Error('no state is kept in this test')),
      });
      port = throughJson(jobs);
      organization = await create('organization', [], { name: `jobs-${kind}` });
      workspace = await create('workspace', inOrganization(), {
        name: 'service',
        source: 'https://git.example.com/acme/network.git',
        branch: 'main',
        terraformVersion: '1.11.4',
      });
      template = await create('template', inOrganization(), { name: 'Plan, approve, apply', tcl: planApproveApply });
    });

    after(async () => {
      session.close();
      // The job moves emitted events, which the relay delivers (through NOTIFY on PostgreSQL).
      await core.relay.stop();
      await core.jobEvents.close();
      await store.close();
      await dropDatabase?.();
      await rm(folder, { recursive: true, force: true });
    });

    it('hands the executor a job with its spec resolved, one at a time per workspace, and follows it through an approval', async () => {
      const first = await startJob();
      const second = await startJob();
      const claimed = await claim('executor-a');
      assert.equal(claimed.facts.job, first);
      assert.equal(claimed.status, 'queue');
      assert.ok('spec' in claimed);
      const { spec } = claimed;
      assert.deepEqual(
        spec.steps.map((step) => [step.flow.type, step.status]),
        [
          ['terraformPlan', 'pending'],
          ['approval', 'pending'],
          ['terraformApply', 'pending'],
        ],
      );
      assert.deepEqual(
        [spec.remote.url, spec.ref, spec.tool],
        ['https://git.example.com/acme/network.git', 'main', { kind: 'terraform', version: '1.11.4' }],
      );
      // The second job waits behind the first: its workspace is held.
      assert.equal(await port.claim('executor-b', 60_000), undefined);
      assert.equal(await port.renew(first, 'executor-b', 60_000), 'lost');
      assert.equal(await port.renew(first, 'executor-a', 60_000), 'held');

      assert.equal(await port.jobRunning(first, 'executor-a', {}), true);
      const [plan, approval, apply] = spec.steps;
      assert.ok(plan && approval && apply);
      assert.equal(await port.stepMoved(first, plan.id, { to: 'running', output: 'http://example.com/log' }), true);
      assert.equal(await port.stepMoved(first, plan.id, { to: 'completed' }), true);
      assert.equal(await port.jobRunning(first, 'executor-a', { planChanges: true, commitId: 'a'.repeat(40) }), true);
      assert.equal(await port.stepMoved(first, approval.id, { to: 'waitingApproval' }), true);
      assert.equal(await port.jobWaits(first, 'executor-a', 'ops'), true);
      const waiting = await jobRow(first);
      assert.deepEqual([waiting.status, waiting.approval_team, waiting.commit_id], ['waitingApproval', 'ops', 'a'.repeat(40)]);
      // Waiting for its approval, the job keeps its workspace, and nobody takes it.
      assert.equal(await port.claim('executor-b', 60_000), undefined);

      // The executor may not approve; a client does.
      assert.equal(await port.jobEnded(first, 'executor-a', { status: 'approved' }), false);
      await session.update(jobAt(first), () => ({ attributes: { status: 'approved' }, relationships: {} }));
      const resumed = await claim('executor-b');
      assert.deepEqual([resumed.facts.job, resumed.status], [first, 'approved']);
      assert.ok('spec' in resumed);
      assert.deepEqual(
        resumed.spec.steps.map((step) => step.status),
        ['completed', 'waitingApproval', 'pending'],
      );
      assert.equal(await port.jobRunning(first, 'executor-b', {}), true);
      assert.equal(await port.stepMoved(first, approval.id, { to: 'completed' }), true);
      assert.equal(await port.stepMoved(first, apply.id, { to: 'running' }), true);
      assert.equal(await port.stepMoved(first, apply.id, { to: 'completed' }), true);
      assert.equal(await port.jobEnded(first, 'executor-b', { status: 'completed' }), true);
      assert.equal((await jobRow(first)).status, 'completed');
      // An ended job moves no more, by any executor.
      assert.equal(await port.jobRunning(first, 'executor-b', {}), false);

      // Its workspace is free: the second job goes.
      const next = await claim('executor-a');
      assert.equal(next.facts.job, second);
      await session.update(jobAt(second), () => ({ attributes: { status: 'cancelled' }, relationships: {} }));
      // The client's cancel wins over the executor's moves; the executor only lets the job go.
      assert.equal(await port.renew(second, 'executor-a', 60_000), 'endedByClient');
      assert.equal(await port.jobRunning(second, 'executor-a', {}), false);
      assert.equal(await port.jobEnded(second, 'executor-a', null), true);
      assert.equal((await jobRow(second)).status, 'cancelled');
    });

    it("gives a job of a workspace routed to an agent pool to that pool's agents alone, through an approval too", async () => {
      const pool = await create('agent', inOrganization(), { name: 'private', url: 'http://agents.internal' });
      const elsewhere = await create('agent', inOrganization(), { name: 'elsewhere', url: 'http://other.internal' });
      const routed = await create(
        'workspace',
        inOrganization(),
        { name: 'routed', source: 'https://git.example.com/acme/private.git', branch: 'main', terraformVersion: '1.11.4' },
        { agent: pool },
      );
      const id = await create('job', inOrganization(), { templateReference: template }, { workspace: routed });
      assert.equal(await port.claim('service-executor', 60_000), undefined, "the service's executors leave it");
      assert.equal(await jobs.claimOf(elsewhere, 'other-agent', 60_000), undefined, "another pool's agents leave it");
      const taken = await jobs.claimOf(pool, 'pool-agent', 60_000);
      assert.equal(taken?.facts.job, id);
      assert.equal(await port.jobRunning(id, 'pool-agent', {}), true);
      assert.equal(await port.jobWaits(id, 'pool-agent', 'ops'), true);
      await session.update(jobAt(id), () => ({ attributes: { status: 'approved' }, relationships: {} }));
      assert.equal(await port.claim('service-executor', 60_000), undefined, 'approved, it still goes to its pool alone');
      assert.equal((await jobs.claimOf(pool, 'pool-agent-2', 60_000))?.facts.job, id);
      assert.equal(await port.jobRunning(id, 'pool-agent-2', {}), true);
      assert.equal(await port.jobEnded(id, 'pool-agent-2', { status: 'completed' }), true);
    });

    it('fails a job whose executor stopped: its lease ran out, and recovery ends it with the reason', async () => {
      const id = await startJob();
      await claim('executor-gone', 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const ended = await port.recover('executor-alive', false);
      assert.deepEqual(ended, [{ jobId: id, executor: 'executor-gone' }]);
      const job = await jobRow(id);
      assert.equal(job.status, 'failed');
      assert.match(String(job.comments), /executor-gone\) stopped before the job ended/);
      // The job is no longer the executor's: it moves it nowhere.
      assert.equal(await port.jobEnded(id, 'executor-gone', { status: 'completed' }), false);
    });

    it('fires a schedule of every second at most once a minimum interval: a cron cannot flood the queue', async () => {
      const other = await create('workspace', inOrganization(), { name: 'scheduled', source: 'https://git.example.com/acme/s.git' });
      const schedule = await create('schedule', [...inOrganization(), { resource: resource('workspace'), id: other }], {
        cron: '* * * * * ?',
        templateReference: template,
      });
      const start = Date.now() + 3_600_000;
      const at = (seconds: number) => new Date(start + seconds * 1000).toISOString();
      const jobsOf = (fired: { scheduleId: string; jobId: string }[]) => fired.filter((one) => one.scheduleId === schedule);
      // Seen first: its next firing is computed, from then on.
      assert.deepEqual(jobsOf(await port.fireSchedules(at(0))), []);
      const first = jobsOf(await port.fireSchedules(at(1)));
      assert.equal(first.length, 1);
      // Every second its cron is due again, and the interval (60 s here) holds it back.
      for (const second of [2, 3, 30, 59]) assert.deepEqual(jobsOf(await port.fireSchedules(at(second))), [], `at ${second} s`);
      // A minute after the first (the cron's next whole second past it).
      const again = jobsOf(await port.fireSchedules(at(62)));
      assert.equal(again.length, 1);
      // Out of the way of the tests that claim jobs after it: its jobs cancelled, and it disabled.
      for (const { jobId } of [...first, ...again])
        await session.update(jobAt(jobId), () => ({ attributes: { status: 'cancelled' }, relationships: {} }));
      await disable(other, schedule);
    });

    it('refuses a job past the unfinished jobs a workspace may hold, with when to try again; a schedule then skips its turn', async () => {
      const crowded = await create('workspace', inOrganization(), { name: 'crowded', source: 'https://git.example.com/acme/c.git' });
      const made: string[] = [];
      for (let i = 0; i < jobCaps.workspace; i++)
        made.push(await create('job', inOrganization(), { templateReference: template }, { workspace: crowded }));
      await assert.rejects(
        create('job', inOrganization(), { templateReference: template }, { workspace: crowded }),
        (error: unknown) => error instanceof ApiError && error.status === 429 && error.advice.retryAfterSeconds === 60,
      );
      // A schedule of that workspace fires without a job, and its time moves on.
      const schedule = await create('schedule', [...inOrganization(), { resource: resource('workspace'), id: crowded }], {
        cron: '* * * * * ?',
        templateReference: template,
      });
      const start = Date.now() + 7_200_000;
      const at = (seconds: number) => new Date(start + seconds * 1000).toISOString();
      await port.fireSchedules(at(0));
      assert.deepEqual(
        (await port.fireSchedules(at(1))).filter((fired) => fired.scheduleId === schedule),
        [],
      );
      // Cancelled, the jobs make room again.
      for (const id of made) await session.update(jobAt(id), () => ({ attributes: { status: 'cancelled' }, relationships: {} }));
      const room = await create('job', inOrganization(), { templateReference: template }, { workspace: crowded });
      await session.update(jobAt(room), () => ({ attributes: { status: 'cancelled' }, relationships: {} }));
      await disable(crowded, schedule);
    });

    it('runs what the job started with: a template changed afterwards changes nothing of its spec', async () => {
      const id = await startJob();
      await session.update({ resource: resource('template'), ancestors: inOrganization(), id: template }, () => ({
        attributes: { tcl: Buffer.from('flow:\n  - type: "terraformDestroy"\n    name: "Other"\n    step: 900\n').toString('base64') },
        relationships: {},
      }));
      const claimed = await claim('executor-a');
      assert.equal(claimed.facts.job, id);
      assert.ok('spec' in claimed);
      assert.deepEqual(
        claimed.spec.steps.map((step) => step.flow.name),
        ['Plan', 'Approve', 'Apply'],
      );
      assert.equal(await port.jobEnded(id, 'executor-a', { status: 'failed', reason: 'ended by the test' }), true);
    });
  });
}

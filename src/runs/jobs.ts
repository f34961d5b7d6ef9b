import type { ServiceWork } from '../engine/index.js';
import { isAgentExecutor } from './agent-tokens.js';
import type { Pool } from './claim-queries.js';
import { JobQueue } from './job-queue.js';
import { recoverJobs } from './job-recovery.js';
import { resolveJobSpec, RunProblem } from './job-spec.js';
import { status } from './job-statuses.js';
import { jobFacts } from './run-report.js';
import type { RunRecords } from './run-records.js';
import { RunOverview, type QueueOverview } from './run-overview.js';
import { RunStore, type StepLog, type ToolVersionInUse } from './run-store.js';
import type { ClaimedJob, Holding, JobEnding, RunFindings, RunnerPort, StepMove } from './runner-port.js';
import { ScheduleFires, type NextFire } from './schedule-fires.js';
import type { StepNote } from './step-folders.js';

/** What the Jobs service is made of besides the store: how it mints a run's state credential and keeps a state a run left. */
export interface JobsParts {
  /** The executor's work on the store; the scheduler's for schedules firing. */
  work: { executor: ServiceWork; scheduler: ServiceWork };
  records: RunRecords;
  /** When a cron expression fires next. */
  next: NextFire;
  /** The least time between two jobs of one schedule. */
  scheduleMinIntervalMs: number;
  /** A credential for one job's workspace state alone. */
  stateCredential(job: { organizationId: string; workspaceId: string; jobId: string }): Promise<string>;
  /** Stores a state a step's tool could not upload as its workspace's newest, and releases the job's lock. */
  keepState(note: StepNote, text: string): Promise<number>;
}

/**
 * The service that owns jobs once they start: the executor's side of the runner port. It alone
 * moves a job and its steps (through the transition table, in job-statuses.ts), resolves a job's
 * spec when an executor takes it, keeps what a run writes beside the records, fires schedules, and
 * ends the jobs of executors that stopped. A client's moves (approve, reject, cancel) and a job's
 * start go through job-changes.ts, the same table.
 */
export class Jobs implements RunnerPort {
  private readonly queue: JobQueue;
  private readonly store: RunStore;
  private readonly schedules: ScheduleFires;
  private readonly executors: RunOverview;

  constructor(private readonly parts: JobsParts) {
    const { work, records, next } = parts;
    this.queue = new JobQueue(work.executor, records);
    this.store = new RunStore(work.executor, records);
    this.schedules = new ScheduleFires(work.scheduler, records, next, parts.scheduleMinIntervalMs);
    this.executors = new RunOverview(work.executor, records);
  }

  /** The service's own executors take the jobs of the workspaces routed to no agent pool. */
  claim(executor: string, leaseMs: number): Promise<ClaimedJob | undefined> {
    return this.claimOf(null, executor, leaseMs);
  }

  /** The next job of `pool` (an agent pool's id; null: of no pool) for `executor`, with its spec resolved. */
  async claimOf(pool: Pool, executor: string, leaseMs: number): Promise<ClaimedJob | undefined> {
    for (;;) {
      const job = await this.queue.claim(executor, leaseMs, pool);
      if (job === undefined) return undefined;
      const id = String(job.id);
      const taken = { facts: jobFacts(job), status: job.status === status.approved ? status.approved : status.queue };
      const source = await this.store.source(id);
      if (source === undefined) {
        // Deleted with its workspace meanwhile: nothing to run, and the next one may wait.
        await this.queue.letGo(id, executor);
        continue;
      }
      try {
        return { ...taken, spec: await resolveJobSpec(source, this.parts.records) };
      } catch (error) {
        if (error instanceof RunProblem) return { ...taken, problem: error.message };
        throw error;
      }
    }
  }

  async renew(jobId: string, executor: string, leaseMs: number): Promise<Holding> {
    const now = await this.queue.renew(jobId, executor, leaseMs);
    return now === undefined ? 'lost' : now === status.cancelled ? 'endedByClient' : 'held';
  }

  jobRunning(jobId: string, executor: string, findings: RunFindings): Promise<boolean> {
    const values = Object.keys(findings).length === 0 ? {} : { values: { ...findings } };
    return this.queue.move(jobId, executor, { to: status.running, ...values });
  }

  jobWaits(jobId: string, executor: string, team: string): Promise<boolean> {
    return this.queue.move(jobId, executor, { to: status.waitingApproval, values: { approvalTeam: team }, release: true });
  }

  async jobEnded(jobId: string, executor: string, ending: JobEnding | null): Promise<boolean> {
    if (ending === null) {
      await this.queue.letGo(jobId, executor);
      return true;
    }
    const reason = ending.reason === undefined ? {} : { reason: ending.reason };
    return this.queue.move(jobId, executor, { to: ending.status, ...reason, release: true });
  }

  stepMoved(jobId: string, stepId: string, move: StepMove): Promise<boolean> {
    return this.queue.step(jobId, stepId, move.to, move.output);
  }

  lockWorkspace(jobId: string): Promise<void> {
    return this.queue.lockWorkspace(jobId);
  }

  async stateCredential(jobId: string): Promise<string> {
    const job = await this.store.job(jobId);
    if (job === undefined) throw new Error(`job ${jobId} is gone`);
    return this.parts.stateCredential({ organizationId: String(job.organization_id), workspaceId: String(job.workspace_id), jobId });
  }

  writeLog(stepId: string, log: StepLog): Promise<void> {
    return this.store.writeLog(stepId, log);
  }

  savePlanView(stepId: string, view: unknown): Promise<void> {
    return this.store.writePlanView(stepId, view);
  }

  savePlan(jobId: string, plan: string): Promise<void> {
    return this.store.savePlan(jobId, Buffer.from(plan, 'base64'));
  }

  async readPlan(jobId: string): Promise<string | null> {
    return (await this.store.readPlan(jobId))?.toString('base64') ?? null;
  }

  keepState(note: StepNote, text: string): Promise<number> {
    return this.parts.keepState(note, text);
  }

  seen(executor: string, runs: number, startedAt: string): Promise<void> {
    return this.executors.seen(executor, runs, startedAt);
  }

  left(executor: string): Promise<void> {
    return this.executors.left(executor);
  }

  recover(executor: string, alone: boolean): Promise<{ jobId: string; executor: string }[]> {
    // Alone, the embedded store's one process knows every other executor of its own is gone; an agent is not one of them.
    return recoverJobs(this.parts.work.executor, this.parts.records, (other) => alone && other !== executor && !isAgentExecutor(other));
  }

  fireSchedules(now: string): Promise<{ scheduleId: string; jobId: string }[]> {
    return this.schedules.fireDue(new Date(now));
  }

  versionsInUse(): Promise<ToolVersionInUse[]> {
    return this.store.versionsInUse();
  }

  /** Unfinished jobs by status, the oldest pending one's wait, and the executors seen within `aliveMs`: what an operator alerts on. */
  overview(aliveMs: number): Promise<QueueOverview> {
    return this.executors.overview(aliveMs);
  }
}

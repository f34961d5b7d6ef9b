import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../log.js';
import { runJob, type JobEnd, type JobRunParts } from './job-run.js';
import { RunReport, type RunMetrics } from './run-report.js';
import { status, wakesExecutors, type ClaimedJob, type JobEvents } from './runner-port.js';
import { clearLeftovers } from './step-folders.js';
import { clientCancel, stopReason } from './stop-reason.js';

export interface ExecutorSettings {
  /** The most jobs this executor runs at once. */
  runs: number;
  /** How often it looks for jobs (it also looks whenever a job's status changes). */
  pollMs: number;
  /** How long a job stays held without a renewal: past it, any executor fails the job as abandoned. */
  leaseMs: number;
  /**
   * Whether this is the only executor of its store (the embedded store's one process): then a job
   * another executor held when the process stopped is abandoned at once, not when its lease ends.
   */
  alone: boolean;
}

/** How often a running executor notes that it is alive, and how long after its last note it counts as gone. */
export const executorSeenMs = 10_000;
export const executorAliveMs = 30_000;

/**
 * Takes jobs from the store and runs them, a bounded number at a time: in the server process by
 * default, or as `stratum executor` processes beside it. Holding a job is a lease it renews while it
 * runs; a job whose status a client set to cancelled, or whose lease it lost, is interrupted.
 */
export class Executor {
  readonly id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private again = false;
  private stopping = false;
  private unlisten: (() => void) | undefined;
  private readonly report: RunReport;
  private readonly startedAt = new Date().toISOString();
  private lastSeen = 0;

  constructor(
    private readonly parts: JobRunParts,
    private readonly settings: ExecutorSettings,
    private readonly log: Logger,
    metrics?: RunMetrics,
  ) {
    this.report = new RunReport(log, this.id, metrics);
  }

  /** Ends what a stopped executor left behind, then starts looking for jobs. */
  async start(events: JobEvents): Promise<void> {
    const { settings } = this.parts;
    const leftovers = await clearLeftovers(settings.directory, {
      graceMs: settings.graceMs,
      keepState: (note, text) => this.parts.port.keepState(note, text).then(() => undefined),
    });
    if (leftovers.cleared > 0)
      this.log.info(
        { executor: this.id, folders: leftovers.cleared },
        `executor: cleared ${leftovers.cleared} step folder(s) a stopped process left, after interrupting the processes still running in them`,
      );
    for (const job of leftovers.statesKept)
      this.log.info(
        { executor: this.id, job },
        `executor: stored the state a stopped run of job ${job} could not upload (errored.tfstate), and released its lock`,
      );
    for (const { folder, reason } of leftovers.kept)
      this.log.warn(
        { executor: this.id, folder, reason },
        `executor: the state a stopped run left in ${folder} could not be stored; the folder stays, and the next start tries again`,
      );
    await this.noteAlive();
    await this.recover();
    this.unlisten = events.listen((event) => {
      const held = this.running.get(String(event.jobId));
      if (held !== undefined && event.status === status.cancelled) held.abort.abort(clientCancel);
      if ((wakesExecutors as readonly string[]).includes(event.status)) this.wake();
    });
    this.timer = setInterval(() => this.wake(), this.settings.pollMs);
    this.wake();
  }

  /**
   * Stops taking jobs and interrupts those running as a cancel does: each tool gets SIGINT, again
   * after the grace period, then SIGKILL, and saves its state and releases its lock through the
   * state backend, which must answer meanwhile; a state it could not upload is stored from its
   * folder; each job fails with the reason. Waits at most twice the grace period and `settleMs`
   * more (what a run writes once its tool ended); a run still going then is the next start's.
   */
  async stop(settleMs = 15_000): Promise<void> {
    this.stopping = true;
    this.unlisten?.();
    if (this.timer !== undefined) clearInterval(this.timer);
    const runs = [...this.running.entries()];
    if (runs.length > 0)
      this.log.info(
        { executor: this.id, jobs: runs.map(([id]) => id) },
        `executor: interrupting ${runs.length} run(s): ${runs.map(([id]) => `job ${id}`).join(', ')}`,
      );
    for (const [, run] of runs) run.abort.abort(stopReason);
    const boundMs = 2 * this.parts.settings.graceMs + settleMs;
    let bound: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed out'>((resolve) => (bound = setTimeout(() => resolve('timed out'), boundMs)));
    const ended = Promise.all([this.polling, ...runs.map(([, run]) => run.done)]).then(() => 'ended' as const);
    const how = await Promise.race([ended, timedOut]);
    clearTimeout(bound);
    if (how === 'timed out')
      this.log.warn(
        { executor: this.id, jobs: [...this.running.keys()], boundMs },
        'executor: stopped without waiting for every run; the next start of an executor ends them and releases their locks',
      );
    await this.parts.port.left(this.id).catch(() => undefined);
  }

  /** Looks for jobs now (once at a time; a call meanwhile makes it look again after). */
  wake(): void {
    if (this.stopping) return;
    if (this.polling !== undefined) {
      this.again = true;
      return;
    }
    this.polling = this.poll()
      .catch((error: unknown) => this.log.warn({ err: error, executor: this.id }, 'executor: looking for jobs failed'))
      .finally(() => {
        this.polling = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async recover(): Promise<void> {
    const ended = await this.parts.port.recover(this.id, this.settings.alone);
    for (const { jobId, executor } of ended) this.report.jobAbandoned(jobId, executor);
  }

  /** Notes in the store that this executor runs, at most every executorSeenMs. */
  private async noteAlive(): Promise<void> {
    if (Date.now() - this.lastSeen < executorSeenMs) return;
    this.lastSeen = Date.now();
    await this.parts.port.seen(this.id, this.settings.runs, this.startedAt);
  }

  private async poll(): Promise<void> {
    await this.noteAlive();
    await this.recover();
    for (const { scheduleId, jobId } of await this.parts.port.fireSchedules(new Date().toISOString()))
      this.log.info({ executor: this.id, schedule: scheduleId, job: jobId }, `executor: schedule ${scheduleId} fired: job ${jobId}`);
    while (!this.stopping && this.running.size < this.settings.runs) {
      const job = await this.parts.port.claim(this.id, this.settings.leaseMs);
      if (job === undefined) return;
      this.launch(job);
    }
  }

  private launch(job: ClaimedJob): void {
    const id = job.facts.job;
    const abort = new AbortController();
    const renew = setInterval(
      () => {
        void this.parts.port.renew(id, this.id, this.settings.leaseMs).then(
          (holding) => {
            if (holding !== 'held') abort.abort(clientCancel);
          },
          (error: unknown) => this.log.warn({ err: error, executor: this.id, job: id }, `executor: renewing the lease of job ${id} failed`),
        );
      },
      Math.max(100, Math.floor(this.settings.leaseMs / 3)),
    );
    const { facts } = job;
    const taken = Date.now();
    this.report.jobTaken(facts, job.status);
    const done = runJob(this.parts, this.report, job, abort.signal)
      .catch(async (error: unknown): Promise<JobEnd> => {
        this.log.error({ err: error, executor: this.id, job: id }, `executor: job ${id} failed unexpectedly`);
        const detail = 'The executor failed while running this job; its log has the details.';
        await this.parts.port.jobEnded(id, this.id, { status: status.failed, reason: detail }).catch(() => undefined);
        return { status: status.failed, failure: { reason: 'executor', detail } };
      })
      .then((end) => this.report.jobEnded(facts, end.status, Date.now() - taken, end.failure))
      .finally(() => {
        clearInterval(renew);
        this.running.delete(id);
        this.wake();
      });
    this.running.set(id, { abort, done });
  }
}

import type { Logger } from '../log.js';
import type { Row } from '../model/index.js';
import { status } from './job-statuses.js';

/**
 * Why a job failed, in a few words an alert can group by: its own step failed; the service stopped
 * during it; its executor went away; its tool could not be had; its inputs could not be read (a
 * workspace without a source, a template that does not parse); its flow asks for what Stratum does
 * not do; or the executor itself failed (a bug or the store).
 */
export type FailureReason = 'stepFailed' | 'interrupted' | 'abandoned' | 'tool' | 'inputs' | 'flow' | 'executor' | 'isolation';

/** The per-process series of runs an operator alerts on; the store-wide ones (jobs waiting, executors alive) are read at a scrape. */
export interface RunMetrics {
  jobEnded(status: string, reason: FailureReason | undefined, seconds: number): void;
  stepEnded(type: string, status: string, seconds: number): void;
}

/** A job as the report names it. */
export interface JobFacts {
  job: string;
  workspace: string;
  organization: string;
  template: string;
}

/** A step as the report names it. */
export interface StepFacts {
  step: number;
  name: string;
  type: string;
}

export function jobFacts(job: Row): JobFacts {
  return {
    job: String(job.id),
    workspace: String(job.workspace_id),
    organization: String(job.organization_id),
    template: String(job.template_reference),
  };
}

/**
 * What an executor tells an operator of its runs: one log line per job and per step transition
 * (taken, step started, step ended with its exit code, job ended or interrupted), each with the
 * job, workspace, organization, step, status, duration and executor, and the metrics of the same.
 */
export class RunReport {
  constructor(
    private readonly log: Logger,
    /** The executor whose runs these are, named in every line. */
    readonly executor: string,
    private readonly metrics: RunMetrics | undefined,
  ) {}

  jobTaken(job: JobFacts, status: string): void {
    this.log.info({ ...job, status, executor: this.executor }, `job ${job.job} taken (${status}) by executor ${this.executor}`);
  }

  stepStarted(job: JobFacts, step: StepFacts): void {
    this.log.info(
      { ...job, ...step, status: status.running, executor: this.executor },
      `job ${job.job} step ${step.step} (${step.name}) started`,
    );
  }

  stepEnded(job: JobFacts, step: StepFacts, status: string, ms: number, exitCode?: number): void {
    this.metrics?.stepEnded(step.type, status, ms / 1000);
    const code = exitCode === undefined ? '' : ` (exit code ${exitCode})`;
    this.log.info(
      { ...job, ...step, status, ms, exitCode, executor: this.executor },
      `job ${job.job} step ${step.step} (${step.name}) ${status} after ${seconds(ms)}${code}`,
    );
  }

  /** The job's run in this process ended: finished, failed (with why), cancelled, or given up to wait for an approval. */
  jobEnded(job: JobFacts, status: string, ms: number, failure?: { reason: FailureReason; detail: string }): void {
    // A job a client ended, or another executor took over, meanwhile: its end is theirs to count.
    if (status !== 'left') this.metrics?.jobEnded(status, failure?.reason, ms / 1000);
    const fields = { ...job, status, ms, executor: this.executor, reason: failure?.reason, detail: failure?.detail };
    const line = `job ${job.job} ${status} after ${seconds(ms)}${failure === undefined ? '' : `: ${failure.detail}`}`;
    if (failure === undefined || failure.reason === 'stepFailed' || failure.reason === 'interrupted') this.log.info(fields, line);
    else this.log.warn(fields, line);
  }

  /** A job another executor held ended as abandoned by this one's recovery. */
  jobAbandoned(jobId: string, holder: string): void {
    this.metrics?.jobEnded(status.failed, 'abandoned', 0);
    this.log.warn(
      { job: jobId, status: status.failed, reason: 'abandoned', executor: this.executor, holder },
      `job ${jobId} was abandoned by executor ${holder}, which stopped; it failed and its state lock was released`,
    );
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

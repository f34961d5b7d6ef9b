import { ApiError, conflict, forbidden } from '../errors.js';
import {
  columnOf,
  type AttributeValues,
  type KeptTable,
  type PendingWrite,
  type ResourceDeclaration,
  type Row,
  type WriteContext,
} from '../model/index.js';
import type { FlowStep } from './flow.js';
import { readFlow } from './flow-reading.js';
import { stepOutputPath } from './run-paths.js';
import { jobTransitions, movesTo, status, stepEnds, transitionOf, unfinishedStatuses, type Mover, type RunStatus } from './job-statuses.js';

/** The records a job's changes touch: the job, its steps, its workspace (last status), its template (the flow it starts with). */
export interface JobRecords {
  job: ResourceDeclaration;
  step: ResourceDeclaration;
  workspace: ResourceDeclaration;
  template: ResourceDeclaration;
}

/** A job's flow as its template held it when the job started: what every step of the job runs, after an approval too. */
export const jobFlows: KeptTable = { table: 'job_flow', type: 'jobFlow', key: 'job_id', shown: { template: 'template_id' } };

/** A change of a job's status: the job as stored before it, and the status it takes. */
export interface JobStatusChange {
  job: Row;
  to: RunStatus;
  by: Mover;
  /** Why, when the server decides (a template that cannot run, a step that failed). */
  reason?: string;
}

/**
 * The one place a job's status changes, in the transaction of the change, and only as the
 * transition table allows `by`: the job takes it, a client's ending says so of its steps, its
 * workspace's lastJobStatus and lastJobDate follow when it is the workspace's newest job, and the
 * change is announced (notifications, the live channel, the executors) once it commits.
 */
export async function changeJobStatus(context: WriteContext, records: JobRecords, change: JobStatusChange): Promise<void> {
  const id = String(change.job.id);
  const from = change.by === 'start' ? null : (String(change.job.status) as RunStatus);
  if (transitionOf(change.by, from, change.to) === undefined)
    throw new Error(`job ${id}: the ${change.by} may not move it from ${String(from)} to ${change.to}`);
  const workspaceId = String(change.job.workspace_id);
  const values: AttributeValues = { status: change.to };
  if (change.reason !== undefined) values.comments = change.reason;
  await context.set(records.job, id, values);
  // A job a client ends says so of its steps at once, as Terrakube's cancel does: a page that stops
  // polling once the job has ended shows no step still running.
  const endsSteps = stepEnds[change.to];
  if (endsSteps !== undefined) {
    for (const step of await context.children(records.step, id)) {
      const next = endsSteps[String(step.status) as RunStatus];
      if (next !== undefined) await context.set(records.step, String(step.id), { status: next });
    }
  }
  const newest = await context.newest(records.job, 'workspace_id', workspaceId);
  if (newest === undefined || String(newest.id) === id)
    await context.set(records.workspace, workspaceId, { lastJobStatus: change.to, lastJobDate: new Date().toISOString() });
  context.emit('jobStatusChanged', {
    jobId: Number(id),
    workspaceId,
    organizationId: String(change.job.organization_id),
    templateId: String(change.job.template_reference),
    status: change.to,
  });
}

/**
 * Steps' logs: kept by the service for the one step it writes itself (the step that says why a job
 * could not start), and by the run store for every step an executor runs.
 */
export const stepLogs: KeptTable = { table: 'step_log', type: 'stepLog', key: 'step_id', shown: { text: 'text' } };

/**
 * Starts a job just created (by "Run now", a schedule, and every intake after them): its template's
 * flow is read once and kept with the job, its steps are made from it, and it waits for an
 * executor. A template that cannot run fails the job at once, with the reason in `comments` and
 * in the log of the one step it gets, where Terrakube's web UI shows a run's failure.
 */
export async function startJob(context: WriteContext, records: JobRecords, job: Row): Promise<void> {
  await checkJobCaps(context, records, job);
  const templateId = String(job.template_reference);
  const stored = await context.withSecrets(records.template, templateId);
  const reading = stored === undefined ? { problem: `The template ${templateId} is gone.` } : readFlow(String(stored.tcl));
  if ('problem' in reading) {
    const jobId = String(job.id);
    const stepId = await context.insert(records.step, jobId, { stepNumber: 0, name: 'Read the template', status: status.failed });
    await context.set(records.step, stepId, { output: stepOutputPath(String(job.organization_id), jobId, stepId) });
    const text = `The job could not start: ${reading.problem}\n`;
    await context.keep(stepLogs, { step_id: stepId, text, trimmed: 0, finished: 1, updated_date: new Date().toISOString() });
    await changeJobStatus(context, records, { job, by: 'start', to: status.failed, reason: reading.problem });
    return;
  }
  await context.keep(jobFlows, { job_id: String(job.id), template_id: templateId, flow: JSON.stringify(reading.steps) });
  for (const entry of reading.steps)
    await context.insert(records.step, String(job.id), { stepNumber: entry.step, name: entry.name, status: status.pending });
  await changeJobStatus(context, records, { job, by: 'start', to: status.pending });
}

/**
 * The most unfinished jobs one workspace, and one organization, may hold: past them a queue only
 * grows (a schedule, a script in a loop) and one organization would crowd out the others.
 */
export const jobCaps = { workspace: 20, organization: 500 } as const;

/** Refuses a new job past the caps (429, with when to try again), counting the job itself. */
async function checkJobCaps(context: WriteContext, records: JobRecords, job: Row): Promise<void> {
  const waiting = { attribute: 'status', values: unfinishedStatuses };
  const places = [
    { cap: jobCaps.workspace, where: { column: 'workspace_id', value: String(job.workspace_id) }, what: 'This workspace' },
    { cap: jobCaps.organization, where: { column: 'organization_id', value: String(job.organization_id) }, what: 'This organization' },
  ];
  for (const { cap, where, what } of places) {
    if ((await context.countUpTo(records.job, where, waiting, cap + 1)) > cap)
      throw new ApiError(
        429,
        {
          code: 'too_many_jobs',
          detail: `${what} has ${cap} unfinished jobs, as many as it may: cancel some, or wait until they end.`,
        },
        { retryAfterSeconds: 60 },
      );
  }
}

/** A job's kept flow, as startJob wrote it. */
export function keptFlow(row: Row): FlowStep[] {
  return JSON.parse(String(row.flow)) as FlowStep[];
}

/** A new job's status: it is pending until it starts. */
export const newJobStatus = status.pending;

/**
 * A client's change of a job's status, checked against the transition table: only the moves a
 * client makes (422 otherwise), from the statuses they start from (409), by a caller who holds what
 * the move needs (403); then made.
 */
export async function moveByClient(write: PendingWrite, records: JobRecords, current: Row): Promise<void> {
  const to = write.values.status;
  const from = String(current[columnOf('status')]) as RunStatus;
  if (typeof to !== 'string' || to === from) return;
  const froms = movesTo('client', to as RunStatus);
  if (froms.length === 0)
    throw new ApiError(422, {
      code: 'invalid_value',
      detail: `A job's status moves to ${to} as it runs; a client may only set ${clientTargets().join(', ')}.`,
      at: { attribute: 'status' },
    });
  const transition = transitionOf('client', from, to as RunStatus);
  if (transition === undefined)
    throw conflict(`This job is ${from}; it can be ${to} only while it is ${froms.join(', ')}.`, { attribute: 'status' });
  if (transition.needs !== undefined && !(await write.holds(transition.needs)))
    throw forbidden(`Setting a job ${to} needs the ${transition.needs} permission, from a team or from a grant on its workspace.`);
  await changeJobStatus(write, records, { job: current, by: 'client', to: to as RunStatus });
}

function clientTargets(): RunStatus[] {
  return [...new Set(jobTransitions.filter((transition) => transition.by === 'client').map((transition) => transition.to))];
}

import type { Kysely } from 'kysely';
import type { ServiceWork } from '../engine/index.js';
import { columnOf, type ResourceDeclaration, type Row, type SecretReader } from '../model/index.js';
import type { Database } from '../store/database.js';
import { jobFlows, stepLogs } from './job-changes.js';
import type { RunRecords } from './run-records.js';
import type { VariableLayers } from './run-variables.js';
import { readVariableLayers } from './variable-layers.js';

const logTable = stepLogs.table;
const planTable = 'job_plan';

/** What a run starts from, secrets opened: only the executor reads this, and never answers with it. */
export interface RunSource {
  job: Row;
  workspace: Row;
  /** The flow kept when the job started; undefined for a job started before flows were kept, which reads its template. */
  flow: Row | undefined;
  template: Row | undefined;
  /** The job's steps, by step number. */
  steps: Row[];
  /** Its variables' layers, sensitive values opened. */
  layers: VariableLayers;
  /** Opens the workspace's credentials (VCS token, SSH key). */
  secrets: SecretReader;
}

/** A step's log as stored: the kept text, how many characters before it were trimmed, and whether the step has ended. */
export interface StepLog {
  text: string;
  trimmed: number;
  finished: boolean;
}

/** What a run reads and writes beside the records: its inputs, step logs and saved plans. */
export class RunStore {
  constructor(
    private readonly work: ServiceWork,
    private readonly records: RunRecords,
  ) {}

  /** A job as stored; undefined when it is gone. */
  job(jobId: string): Promise<Row | undefined> {
    return this.work.db.selectFrom(this.records.job.table).selectAll().where('id', '=', jobId).executeTakeFirst();
  }

  async source(jobId: string): Promise<RunSource | undefined> {
    const { db } = this.work;
    const { records } = this;
    const job = await this.job(jobId);
    if (job === undefined) return undefined;
    const tenantId = String(job.organization_id);
    const workspace = await db.selectFrom(records.workspace.table).selectAll().where('id', '=', job.workspace_id).executeTakeFirst();
    if (workspace === undefined) return undefined;
    const steps = await db.selectFrom(records.step.table).selectAll().where('job_id', '=', jobId).orderBy('step_number').execute();
    const flow = await db.selectFrom(jobFlows.table).selectAll().where('job_id', '=', jobId).executeTakeFirst();
    const secrets = this.work.secrets(tenantId);
    return {
      job,
      workspace,
      flow,
      template: flow === undefined ? await secrets.withSecrets(records.template, String(job.template_reference)) : undefined,
      steps,
      layers: await readVariableLayers(this.work, records, { organizationId: tenantId, workspaceId: String(workspace.id) }, true),
      secrets,
    };
  }

  /** The tool versions the workspaces with a source run: what an executor checks it has at its start. */
  versionsInUse(): Promise<ToolVersionInUse[]> {
    return toolVersionsInUse(this.work.db, this.records.workspace);
  }

  /** Stores what a step has printed so far (redacted already), for its readers on any replica. */
  async writeLog(stepId: string, log: StepLog): Promise<void> {
    const values = { text: log.text, trimmed: log.trimmed, finished: log.finished ? 1 : 0, updated_date: new Date().toISOString() };
    await this.work.db
      .insertInto(logTable)
      .values({ step_id: stepId, ...values })
      .onConflict((conflict) => conflict.column('step_id').doUpdateSet(values))
      .execute();
  }

  /**
   * Keeps a plan step's structured view beside its log, once the log is stored: redacted as the log
   * is, and holding no more than the log shows of the plan.
   */
  async writePlanView(stepId: string, view: unknown): Promise<void> {
    await this.work.db
      .updateTable(logTable)
      .set({ plan_view: JSON.stringify(view) })
      .where('step_id', '=', stepId)
      .execute();
  }

  /** Keeps a job's saved plan for its apply step, sealed: a plan holds the run's variable values. */
  async savePlan(jobId: string, plan: Buffer): Promise<void> {
    const values = { plan: this.work.seal(plan.toString('base64'), planPlace(jobId)), bytes: plan.length };
    await this.work.db
      .insertInto(planTable)
      .values({ job_id: jobId, ...values })
      .onConflict((conflict) => conflict.column('job_id').doUpdateSet(values))
      .execute();
  }

  async readPlan(jobId: string): Promise<Buffer | undefined> {
    const row = await this.work.db.selectFrom(planTable).selectAll().where('job_id', '=', jobId).executeTakeFirst();
    if (row === undefined) return undefined;
    return Buffer.from(this.work.open(String(row.plan), planPlace(jobId)), 'base64');
  }
}

const planPlace = (jobId: string) => ({ table: planTable, column: 'plan', key: jobId });

/** The structured views of a job's plan steps, by step id. */
export async function readPlanViews(db: Kysely<Database>, steps: readonly string[]): Promise<Record<string, unknown>> {
  if (steps.length === 0) return {};
  const rows = await db
    .selectFrom(logTable)
    .select(['step_id', 'plan_view'])
    .where('step_id', 'in', steps)
    .where('plan_view', 'is not', null)
    .execute();
  return Object.fromEntries(rows.map((row) => [String(row.step_id), JSON.parse(String(row.plan_view)) as unknown]));
}

/** Marks the logs of steps that ended without their executor (it stopped) as complete. */
export async function finishLogs(db: Kysely<Database>, steps: readonly string[]): Promise<void> {
  if (steps.length === 0) return;
  await db.updateTable(logTable).set({ finished: 1, updated_date: new Date().toISOString() }).where('step_id', 'in', steps).execute();
}

/** A step's stored log; undefined before the step has printed anything. */
export async function readStepLog(db: Kysely<Database>, stepId: string): Promise<StepLog | undefined> {
  const row = await db.selectFrom(logTable).selectAll().where('step_id', '=', stepId).executeTakeFirst();
  if (row === undefined) return undefined;
  return { text: String(row.text), trimmed: Number(row.trimmed), finished: Number(row.finished) === 1 };
}

/** A Terraform or OpenTofu version workspaces with a source run, and how many run it. */
export interface ToolVersionInUse {
  kind: 'terraform' | 'tofu';
  version: string;
  workspaces: number;
}

/** The Terraform and OpenTofu versions the workspaces with a source run, and how many run each: what an executor must have. */
export async function toolVersionsInUse(db: Kysely<Database>, workspace: ResourceDeclaration): Promise<ToolVersionInUse[]> {
  let query = db
    .selectFrom(workspace.table)
    .select([columnOf('iacType'), columnOf('terraformVersion')])
    .select((eb) => eb.fn.countAll<string | number>().as('workspaces'))
    .where(columnOf('source'), 'is not', null)
    .where(columnOf('terraformVersion'), 'is not', null)
    .where(columnOf('terraformVersion'), '!=', '')
    .groupBy([columnOf('iacType'), columnOf('terraformVersion')])
    .orderBy(columnOf('iacType'))
    .orderBy(columnOf('terraformVersion'))
    .limit(100);
  if (workspace.softDelete !== undefined) query = query.where(columnOf(workspace.softDelete), '=', 0);
  const rows = await query.execute();
  return rows.map((row) => ({
    kind: row[columnOf('iacType')] === 'tofu' ? 'tofu' : 'terraform',
    version: String(row[columnOf('terraformVersion')]),
    workspaces: Number(row.workspaces),
  }));
}

import type { ServiceWork } from '../engine/index.js';
import type { ResourceDeclaration } from '../model/index.js';
import { readPlanViews, readStepLog, type StepLog } from './run-store.js';

/**
 * What a run leaves for its readers: each step's log and the structured views of its plans. The
 * transport finds the step or job through the caller's session first (404 for one it may not see),
 * then reads here what the run wrote beside it.
 */
export class RunLogs {
  constructor(
    private readonly work: ServiceWork,
    private readonly step: ResourceDeclaration,
  ) {}

  /** A step's stored log; undefined before the step has printed anything. */
  stepLog(stepId: string): Promise<StepLog | undefined> {
    return readStepLog(this.work.db, stepId);
  }

  /** The structured views of a job's plan steps, by step id. */
  async planViews(jobId: string): Promise<Record<string, unknown>> {
    const ids = await this.work.db.selectFrom(this.step.table).select('id').where(this.work.parentColumn(this.step), '=', jobId).execute();
    return readPlanViews(
      this.work.db,
      ids.map((row) => String(row.id)),
    );
  }
}

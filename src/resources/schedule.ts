import { ApiError } from '../errors.js';
import { defineResource, flag, readOnly, text, toOne, type PendingWrite } from '../model/index.js';
import { quartzCronProblem } from './quartz-cron.js';

const maxTclBytes = 256 * 1024;

/**
 * When a template runs on a workspace by itself, as a Quartz cron expression in UTC (Terrakube's
 * Schedules tab). An executor fires it (src/engine/schedule-fires.ts): `firing` turns true once an
 * executor has computed its next firing, within seconds of its creation while one runs.
 */
export const schedule = defineResource({
  type: 'schedule',
  table: 'schedule',
  parent: 'workspace',
  attributes: {
    cron: text({ required: true, max: 256 }),
    // The template that runs: an id of the organization's templates, as Terrakube's clients send it.
    templateReference: text({ max: 128, idOf: 'template' }),
    // Terrakube's flow text from before templates (deprecated there): stored and returned as sent.
    tcl: text({ max: maxTclBytes, maxBytes: maxTclBytes }),
    description: text({ max: 512 }),
    enabled: flag(true),
    firing: readOnly(flag(false)),
  },
  relationships: {
    workspace: toOne('workspace', 'workspace_id'),
  },
  beforeWrite: checkCron,
});

/** A schedule's cron is one Quartz reads (the dialect Terrakube's web UI writes). */
function checkCron(write: PendingWrite): void {
  const { cron } = write.values;
  if (typeof cron !== 'string') return;
  const problem = quartzCronProblem(cron);
  if (problem === undefined) return;
  throw new ApiError(422, {
    code: 'invalid_value',
    detail: `cron is not a Quartz cron expression: ${problem}.`,
    at: { attribute: 'cron' },
  });
}

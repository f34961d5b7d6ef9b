import { invalidValue } from '../errors.js';
import {
  attributeFields,
  defineResource,
  flag,
  fromColumn,
  oneOf,
  readOnly,
  text,
  textList,
  toMany,
  toOne,
  type PendingWrite,
} from '../model/index.js';
import { moveByClient, newJobStatus, runStatuses, startJob } from '../runs/index.js';
import { step } from './step.js';
import { template } from './template.js';
import { workspace } from './workspace.js';

/** Resource addresses a run targets or replaces (`-target`, `-replace`): as many as a person types. */
const addresses = () => textList({ maxItems: 100, max: 1024 });

/**
 * A run of a template's flow on a workspace (Terrakube's `job`), created by "Run now" and changed
 * by approving, rejecting or cancelling it. Its id is a number of one sequence of the deployment,
 * as Terrakube's are. A job is pending (or failed at once, when its template cannot run) until an
 * executor takes it (src/runs/executor.ts).
 */
export const job = defineResource({
  type: 'job',
  table: 'job',
  parent: 'organization',
  sequenceIds: true,
  grantsThrough: 'workspace',
  attributes: {
    status: oneOf(runStatuses, { default: newJobStatus }),
    // The template that runs: an id of the organization's templates.
    templateReference: text({ required: true, max: 128, idOf: 'template' }),
    overrideBranch: text({ max: 512 }),
    via: text({ max: 64, default: 'UI' }),
    targetAddrs: addresses(),
    replaceAddrs: addresses(),
    refresh: flag(true),
    refreshOnly: flag(false),
    // What the run found and wrote, and why the server failed it: the executor's to set.
    comments: readOnly(text({ max: 4096 })),
    commitId: readOnly(text({ max: 128 })),
    planChanges: readOnly(flag(true)),
    output: readOnly(text({ max: 2048 })),
    approvalTeam: readOnly(text({ max: 128 })),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
    // Deleted with its workspace, and seen by whoever sees the workspace.
    workspace: toOne('workspace', 'workspace_id', { required: true }),
    step: toMany('step', 'job_id'),
  },
  beforeWrite: checkJobWrite,
  afterCreate: (context, record) => startJob(context, records, record),
});

const records = { job, workspace, step, template };

/** What a run does is fixed when it is created: a later write changes its status alone. */
const createOnly = ['templateReference', 'overrideBranch', 'via', 'targetAddrs', 'replaceAddrs', 'refresh', 'refreshOnly'];

/**
 * A new job is pending; a change of a stored one may move its status as a client may (approve,
 * reject, cancel), and may send the rest back as read, unchanged.
 */
async function checkJobWrite(write: PendingWrite): Promise<void> {
  const { current } = write;
  if (current === undefined) {
    if (write.values.status !== newJobStatus)
      throw invalidValue('A new job is pending: its status changes as it runs, or when it is approved, rejected or cancelled.', {
        attribute: 'status',
      });
    return;
  }
  for (const { name, attribute, column } of attributeFields(job)) {
    if (!createOnly.includes(name) || !Object.hasOwn(write.values, name)) continue;
    if (JSON.stringify(write.values[name]) !== JSON.stringify(fromColumn(attribute, current[column])))
      throw invalidValue(`${name} is set when the job is created; only its status changes afterwards.`, { attribute: name });
  }
  await moveByClient(write, records, current);
}

import { ApiError } from '../errors.js';
import { defineResource, flag, manyToMany, oneOf, text, toMany, toOne, type PendingWrite } from '../model/index.js';
import { runStatuses } from '../runs/index.js';
import { job } from './job.js';

/** Where a notification goes, as Terrakube names its channels. */
export const channelTypes = ['SLACK', 'TEAMS', 'WEBHOOK'] as const;

/** The job statuses a notification may fire on, as Terrakube's web UI and API spell them: a run's, and a workspace's before any. */
export const jobStatuses = [...runStatuses, 'NeverExecuted'] as const;

const maxUrlLength = 2048;

/** The templates a configuration is narrowed to, one row per pair; none means every template. */
const templateNarrowing = manyToMany('template', {
  table: 'notification_configuration_template',
  column: 'configuration_id',
  otherColumn: 'template_id',
});

/**
 * A notification configuration (Terrakube's organization Notifications page, and a workspace's
 * Settings > Notifications): where a message goes when a job reaches one of its trigger statuses.
 * Without a workspace it is an organization-wide default, applying to every workspace beside what
 * each configures for itself; with one, it applies to that workspace alone and goes with it. The
 * signing secret is write-only. It may be narrowed to some templates (jobs of other templates do not
 * fire it; none listed means every template). A job's status, a test and a retry deliver.
 */
export const notificationConfiguration = defineResource({
  type: 'notification_configuration',
  table: 'notification_configuration',
  parent: 'organization',
  // Terrakube's web UI edits and deletes a configuration by its id alone.
  atRoot: ['read', 'update', 'delete'],
  attributes: {
    name: text({ required: true, max: 128 }),
    description: text({ max: 1024 }),
    channelType: oneOf(channelTypes, { required: true }),
    destinationUrl: text({ required: true, max: maxUrlLength }),
    signingSecret: text({ max: 512, secret: { always: true } }),
    active: flag(true),
    messageStyle: oneOf(['DETAILED', 'SIMPLE'], { default: 'DETAILED' }),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
    // Deleted with its workspace: left without one, it would turn into a default for every workspace.
    workspace: toOne('workspace', 'workspace_id'),
    triggers: toMany('notification_trigger', 'configuration_id'),
    // The templates it is narrowed to, replaced as a whole (Terrakube's web UI sends the full list);
    // none means every template.
    templates: templateNarrowing,
  },
  beforeWrite: checkDestination,
});

/** One job status a configuration fires on; a status at most once per configuration. */
export const notificationTrigger = defineResource({
  type: 'notification_trigger',
  table: 'notification_trigger',
  parent: 'configuration',
  attributes: {
    jobStatus: oneOf(jobStatuses, { required: true }),
  },
  relationships: {
    configuration: toOne('notification_configuration', 'configuration_id'),
  },
  unique: ['jobStatus'],
});

/**
 * A destination is an absolute http or https address without credentials in it. Whether its host
 * may be reached is decided when a message is sent (the operator's list, and the addresses the
 * name resolves to then), not here: a name may resolve elsewhere tomorrow.
 */
function checkDestination(write: PendingWrite): void {
  const { destinationUrl } = write.values;
  if (typeof destinationUrl !== 'string') return;
  const problem = destinationProblem(destinationUrl);
  if (problem === undefined) return;
  throw new ApiError(422, { code: 'invalid_value', detail: `destinationUrl ${problem}.`, at: { attribute: 'destinationUrl' } });
}

function destinationProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use http or https';
  if (url.username !== '' || url.password !== '') return 'must not hold a user name or password';
  return undefined;
}

/**
 * What the notification endpoints serve: the configurations, and the link that names a
 * configuration's workspace; and the templates it is narrowed to, which a job's notifications read
 * (src/notifications/narrowing.ts).
 */
export const notificationRecords = {
  configuration: notificationConfiguration,
  trigger: notificationTrigger,
  workspaceLink: 'workspace',
  channelTypes,
  templates: templateNarrowing,
  job,
};

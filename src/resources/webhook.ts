import { ApiError, type Problem } from '../errors.js';
import { defineResource, flag, integer, oneOf, readOnly, text, toMany, toOne, type PendingWrite } from '../model/index.js';

/**
 * Ids Terrakube's web UI chooses for webhooks and their events (`uuid()`), as the server's ids are
 * made: lower-case UUIDs, so the paths of the events under a webhook name UUIDs alone.
 */
const clientUuids = {
  pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  description: 'a lower-case UUID, such as 01936b2e-7c4a-7d3e-9f10-2b3c4d5e6f70',
  uuids: true,
} as const;

/**
 * A workspace's VCS webhook (Terrakube's workspace Settings > Webhook): at most one per workspace,
 * the events it reacts to listed under it. Stored for the runs that will use it: registering the
 * hook at the VCS provider needs the provider's API, so `remoteHookId` (the provider's id of the
 * hook) stays null here.
 */
export const webhook = defineResource({
  type: 'webhook',
  table: 'webhook',
  parent: 'workspace',
  clientIds: clientUuids,
  // The web UI saves a webhook with its events' linkage beside `data`, and updates it at the
  // collection's href, as Elide takes them; nothing else is sent that way.
  atomicForms: { relationshipsBesideData: ['events'], updateAtCollection: true },
  attributes: {
    remoteHookId: readOnly(text({ max: 256 })),
    // One hook per repository shared by its workspaces instead of one per workspace, at the provider.
    migratedV2: flag(false),
  },
  relationships: {
    workspace: toOne('workspace', 'workspace_id'),
    events: toMany('webhook_event', 'webhook_id'),
  },
});

const maxPatternsLength = 4096;

/**
 * One event a webhook starts a template for: a push, pull request, comment or release on a branch
 * (or release name) matching `branch` (comma-separated regular expressions) that changes a file
 * matching `path` (comma-separated regular expressions or wildcard patterns, as `pathType` says).
 * The highest `priority` is tried first.
 */
export const webhookEvent = defineResource({
  type: 'webhook_event',
  table: 'webhook_event',
  parent: 'webhook',
  clientIds: clientUuids,
  attributes: {
    event: oneOf(['PUSH', 'PULL_REQUEST', 'PR_COMMENT', 'PING', 'RELEASE'], { required: true }),
    branch: text({ required: true, max: maxPatternsLength }),
    path: text({ required: true, max: maxPatternsLength }),
    pathType: oneOf(['PATTERN', 'REGEX'], { default: 'REGEX' }),
    // The template that runs: an id of the organization's templates, as the web UI sends it (which
    // requires one; Terrakube stores an event without).
    templateId: text({ max: 128, idOf: 'template' }),
    // The web UI sends what was typed in its priority box, as text.
    priority: integer(0, 0, 1000, { digitsAsText: true }),
    // Post the plan on the pull request; allow an apply by a comment on it (which needs the former).
    prWorkflowEnabled: flag(false),
    prApplyEnabled: flag(false),
  },
  relationships: {
    webhook: toOne('webhook', 'webhook_id'),
  },
  beforeWrite: checkPatterns,
});

/**
 * Branches (and release names) always match as regular expressions, and paths do when their type
 * says REGEX: each pattern of the comma-separated list must compile, or the event could never fire.
 */
function checkPatterns(write: PendingWrite): void {
  const { values, current } = write;
  const problems: Problem[] = [];
  const pathType = 'pathType' in values ? values.pathType : current?.path_type;
  const lists: [string, boolean][] = [
    ['branch', 'branch' in values],
    // A path is checked again when the type changes to REGEX under it.
    ['path', pathType === 'REGEX' && ('path' in values || 'pathType' in values)],
  ];
  for (const [name, changed] of lists) {
    if (!changed) continue;
    const value = name in values ? values[name] : current?.[name];
    if (typeof value !== 'string') continue;
    const broken = value
      .split(',')
      .map((pattern) => pattern.trim())
      .find((pattern) => regexProblem(pattern) !== undefined);
    if (broken !== undefined) {
      problems.push({
        code: 'invalid_value',
        detail: `${name} is a comma-separated list of regular expressions; ${JSON.stringify(broken)} is not one: ${regexProblem(broken)}.`,
        at: { attribute: name },
      });
    }
  }
  if (problems.length > 0) throw new ApiError(422, problems);
}

function regexProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : 'it does not compile';
  }
}

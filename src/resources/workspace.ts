import { ApiError } from '../errors.js';
import { gitSourceRefusal } from '../git/index.js';
import {
  defineResource,
  flag,
  oneOf,
  readOnly,
  text,
  timestamp,
  toMany,
  toOne,
  type AttributeValues,
  type PendingWrite,
} from '../model/index.js';

export const workspace = defineResource({
  type: 'workspace',
  table: 'workspace',
  parent: 'organization',
  // Terrakube clients reach a workspace, its variables and its VCS link at /api/v1/workspace/{id}.
  atRoot: ['read', 'update', 'delete'],
  attributes: {
    name: text({ required: true, max: 128 }),
    description: text({ max: 512 }),
    // The repository runs check out (see checkSource); CLI-driven workspaces send "empty".
    source: text({ max: 2048 }),
    branch: text({ max: 512, default: 'main' }),
    folder: text({ max: 1024, default: '/' }),
    // A template of the organization, as an id Terrakube clients send and read as text ("" for
    // CLI-driven workspaces, which the Terraform provider reads back as sent).
    defaultTemplate: text({ max: 128, idOf: 'template' }),
    iacType: oneOf(['terraform', 'tofu'], { default: 'terraform' }),
    terraformVersion: text({ max: 128 }),
    // Without a value, the organization's mode (see inheritExecutionMode).
    executionMode: oneOf(['remote', 'local'], { default: null }),
    allowRemoteApply: flag(false),
    globalRemoteState: flag(true),
    // The workspaces of the organization that may read this one's state while globalRemoteState is
    // false, as a comma-separated list of ids (Terrakube's State Shared page).
    sharedIds: text({ max: 40_000, idsOf: 'workspace' }),
    // The SSH key of the organization that modules are fetched with, as the `ssh` link's id but sent
    // and read as text ("" when the web UI clears it).
    moduleSshKey: text({ max: 128, idOf: 'ssh' }),
    locked: flag(false),
    lockDescription: text({ max: 512 }),
    // Existing clients delete a workspace by PATCHing deleted: true.
    deleted: flag(false),
    lastJobStatus: readOnly(text({ max: 64, default: 'NeverExecuted' })),
    lastJobDate: timestamp(),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
    // Deleting a VCS connection, an SSH key, a project or an agent pool unlinks it from its workspaces.
    vcs: toOne('vcs', 'vcs_id', { onDelete: 'set null' }),
    ssh: toOne('ssh', 'ssh_id', { onDelete: 'set null' }),
    project: toOne('project', 'project_id', { onDelete: 'set null' }),
    agent: toOne('agent', 'agent_id', { onDelete: 'set null' }),
    variable: toMany('variable', 'workspace_id'),
    reference: toMany('reference', 'workspace_id'),
    workspaceTag: toMany('workspacetag', 'workspace_id'),
    schedule: toMany('schedule', 'workspace_id'),
    // The teams granted access to this workspace alone (Terrakube's Team Access).
    access: toMany('access', 'workspace_id'),
    // Its VCS webhook, one at most: read as a to-one link, as Terrakube's web UI reads it.
    webhook: toMany('webhook', 'workspace_id', { atMostOne: true }),
    // Records of the organization that name this workspace: listed and created under its path too.
    notificationConfiguration: toMany('notification_configuration', 'workspace_id'),
    // Its runs, newest last; Terrakube's web UI lists them from `?include=job`.
    job: toMany('job', 'workspace_id'),
    // Its state versions, written by the state backend (Terrakube's States tab).
    history: toMany('history', 'workspace_id'),
  },
  softDelete: 'deleted',
  unique: ['name'],
  beforeWrite: async (write) => {
    checkSource(write);
    await inheritExecutionMode(write);
  },
});

/**
 * What a workspace created without `globalRemoteState` gets, as an operator chose it
 * (STRATUM_WORKSPACE_GLOBAL_REMOTE_STATE): the declared `true` is Terrakube's default and the
 * interface's; `false` keeps each new workspace's state to its own runs until someone shares it.
 */
export const workspaceDefaults = (globalRemoteState: boolean): [string, AttributeValues] => [workspace.type, { globalRemoteState }];

/**
 * A source is refused when saved with the words its run would fail with, rather than accepted and
 * failed at the first run: only what git may read from the network (never the server's disk). None,
 * `""` and `"empty"` (CLI-driven) run nothing. A value an update sends back as stored is not checked
 * again, so a workspace saved before this rule keeps its settings page; its runs still refuse it.
 */
function checkSource(write: PendingWrite): void {
  const source = write.values.source;
  if (typeof source !== 'string' || (write.current !== undefined && write.current.source === source)) return;
  const url = source.trim();
  const refusal = url === '' || url === 'empty' ? undefined : gitSourceRefusal(url);
  if (refusal !== undefined) throw new ApiError(422, { code: 'invalid_value', detail: refusal, at: { attribute: 'source' } });
}

/** A workspace created or set without an execution mode runs the way its organization does. */
async function inheritExecutionMode(write: PendingWrite): Promise<void> {
  if (!('executionMode' in write.values) || write.values.executionMode !== null) return;
  write.values.executionMode = String((await write.tenant()).execution_mode);
}

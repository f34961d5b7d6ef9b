import { auditName, type Caller } from '../auth/caller.js';
import { ApiError, forbidden, notFound } from '../errors.js';
import { columnOf, isTrue, type ResourceDeclaration, type Row, type StateRecords } from '../model/index.js';
import { capabilitiesIn, grantedOn } from '../policy/capabilities.js';
import { locateRecord, recordsAbove } from './locate.js';
import type { Scope } from './scope.js';
import { jobHolder } from './state-lock.js';

/** The workspace whose state a request names, by its organization and its id. */
export interface StatePlace {
  organizationId: string;
  workspaceId: string;
}

/**
 * Who reaches a workspace's state: a caller (a person, a team or personal token, an administrator)
 * who must hold the state capability there, or a short-lived state credential minted for one
 * workspace and one job, which holds it there and nowhere else.
 */
export type StateAccess = { kind: 'caller' } | { kind: 'credential'; organizationId: string; workspaceId: string; jobReference: string };

/** The declarations the state backend works with, found in the registry once. */
export interface StateResources {
  workspace: ResourceDeclaration;
  history: ResourceDeclaration;
  job: ResourceDeclaration;
  capability: string;
}

export function stateResources(scope: Scope, names: StateRecords): StateResources {
  const { registry } = scope.engine;
  const workspace = registry.get(names.workspace);
  const history = registry.get(names.history);
  const job = registry.get(names.job);
  if (workspace === undefined || history === undefined || job === undefined) throw new Error('the state records are not declared');
  return { workspace, history, job, capability: names.capability };
}

/** The workspace a state request names, once its caller is known to hold the state capability there. */
export interface AuthorizedWorkspace {
  row: Row;
  /** Who holds the locks it takes (a job's credential: the job), and what a written state's jobReference says. */
  writer: string;
  jobReference: string | null;
  /**
   * Who a written state's audit columns name: the caller, or for a job's credential whoever started
   * the job (a person, a schedule, a token), as Terrakube's States tab shows. Undefined on a read.
   */
  author: string | undefined;
  /** Whether the access is a job's credential, which may not force-unlock or roll back. */
  credential: boolean;
}

/**
 * Finds the workspace and checks the access: 404 for a workspace the caller cannot see (or that
 * another organization holds), 403 for one it can see without the state capability (plain readers:
 * state holds secrets, and Terrakube serves it to managers of state alone).
 */
export async function authorizeState(
  scope: Scope,
  resources: StateResources,
  place: StatePlace,
  access: StateAccess,
  reading = false,
): Promise<AuthorizedWorkspace> {
  const { registry } = scope.engine;
  const { workspace, capability } = resources;
  if (access.kind === 'credential') {
    const own = access.organizationId === place.organizationId && access.workspaceId === place.workspaceId;
    const row =
      own || (reading && access.organizationId === place.organizationId) ? await liveWorkspace(scope, workspace, place) : undefined;
    if (row === undefined || !(own || sharesState(row, access.workspaceId)))
      throw new ApiError(403, {
        code: 'forbidden',
        detail: reading
          ? 'This state credential was issued for another workspace, and this one does not share its state with it (globalRemoteState, sharedIds).'
          : 'This state credential was issued for another workspace; it changes that workspace state alone.',
      });
    const writer = jobHolder(access.jobReference);
    // Read only to name the version: the credential reaches nothing more of the job than before.
    const author = reading ? undefined : ((await jobStarter(scope, resources.job, access)) ?? writer);
    return { row, writer, jobReference: access.jobReference, author, credential: true };
  }
  const tenant = registry.tenant;
  const row = await locateRecord(scope, {
    resource: workspace,
    ancestors: [{ resource: tenant, id: place.organizationId }],
    id: place.workspaceId,
  });
  if (!(await holdsCapability(scope, workspace, row, place.organizationId, capability)))
    throw forbidden(
      `Reading or changing this workspace's state needs the ${capability} permission, from a team of the organization or a grant on the workspace or its project.`,
    );
  const writer = auditName(scope.caller);
  return { row, writer, jobReference: null, author: writer, credential: false };
}

/** Who started the credential's job, as its audit columns say: a job of that workspace only. */
async function jobStarter(
  scope: Scope,
  job: ResourceDeclaration,
  access: { workspaceId: string; jobReference: string },
): Promise<string | undefined> {
  const row = await scope.db
    .selectFrom(job.table)
    .select('created_by')
    .where('id', '=', access.jobReference)
    .where('workspace_id', '=', access.workspaceId)
    .executeTakeFirst();
  return typeof row?.created_by === 'string' && row.created_by !== '' ? row.created_by : undefined;
}

/**
 * Whether a workspace lets another of its organization read its state (Terraform's
 * `terraform_remote_state` in a run): every one while `globalRemoteState` is on, else those its
 * `sharedIds` lists (Terrakube's State Sharing page).
 */
function sharesState(row: Row, readerId: string): boolean {
  if (isTrue(row[columnOf('globalRemoteState')])) return true;
  const shared = row[columnOf('sharedIds')];
  return typeof shared === 'string' && shared.split(',').some((id) => id.trim() === readerId);
}

/** Whether the caller holds `capability` on a workspace: from a team of its organization, or a grant on it or its project. */
async function holdsCapability(scope: Scope, workspace: ResourceDeclaration, row: Row, tenantId: string, capability: string) {
  const { registry } = scope.engine;
  const caller: Caller = scope.caller;
  if (caller.isAdministrator) return true;
  if ((await capabilitiesIn(scope.db, registry, caller, tenantId)).has(capability)) return true;
  return (await grantedOn(scope.db, registry, caller, await recordsAbove(scope, workspace, row))).has(capability);
}

/** A workspace by its ids, not deleted, for a credential that names it (no caller's visibility applies). */
async function liveWorkspace(scope: Scope, workspace: ResourceDeclaration, place: StatePlace): Promise<Row> {
  const link = scope.engine.registry.parentLink(workspace);
  if (link === undefined) throw new Error('a workspace lives in an organization');
  let query = scope.db
    .selectFrom(workspace.table)
    .selectAll()
    .where('id', '=', place.workspaceId)
    .where(link.column, '=', place.organizationId);
  if (workspace.softDelete !== undefined) query = query.where(columnOf(workspace.softDelete), '=', 0);
  const row = await query.executeTakeFirst();
  if (row === undefined) throw notFound(workspace.type, place.workspaceId);
  return row;
}

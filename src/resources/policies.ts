import {
  administrator,
  anyCaller,
  holds,
  holdsOrGranted,
  holdsOrGrantedOneOf,
  onlyAdministrators,
  serverOnly,
  writes,
  type RecordRules,
  type TokenRules,
} from '../policy/rules.js';
import { holdsToken } from '../policy/tokens.js';
import type { Capability } from './team.js';

const needs = (capability: Capability) => writes(holds(capability));

/**
 * Who may create, update and delete each record: the one table of write authorization, and of read
 * authorization for the records of the whole service (`read`). Every other read is confined in its
 * SQL to the caller's organizations and to the workspaces and projects its groups are granted
 * (policy/tenancy.ts), and secrets are never read back. A grant (`access`, `project_access`) counts
 * only where a row says `holdsOrGranted`; everywhere else a capability comes from a team of the
 * organization.
 */
export const recordPolicies: Record<string, RecordRules> = {
  organization: writes(administrator),
  team: writes(administrator),
  // Terrakube lets only its administrators create these: agent pools and global variables by their
  // own rule, tags through the organization's list (its own rule leaves changing and deleting a tag
  // to any member; here they need the same as creating one).
  agent: writes(administrator),
  globalvar: writes(administrator),
  tag: writes(administrator),
  template: needs('manageTemplate'),
  collection: needs('manageCollection'),
  item: needs('manageCollection'),
  reference: needs('manageCollection'),
  // Terrakube lets a team granted manageWorkspace on a workspace (or its project) update it, but
  // only teams of the organization create or delete workspaces ("team manage workspace"); a project
  // grant creating workspaces in its project ("team project limited create workspace") is not kept.
  // A PATCH that soft-deletes is a delete.
  workspace: { create: holds('manageWorkspace'), update: holdsOrGranted('manageWorkspace'), delete: holds('manageWorkspace') },
  // Variables and tags of a workspace change with it, as in Terrakube.
  variable: writes(holdsOrGranted('manageWorkspace')),
  vcs: needs('manageVcs'),
  // As in Terrakube: projects need what workspaces need ("team manage project" checks
  // manageWorkspace), attaching a tag is a change of the workspace, and SSH keys are managed with
  // VCS connections ("team manage ssh" checks manageVcs). A project grant with the admin role does
  // not let its team change the project here.
  project: needs('manageWorkspace'),
  workspacetag: writes(holdsOrGranted('manageWorkspace')),
  ssh: needs('manageVcs'),
  // A schedule is a setting of its workspace (Terrakube checks the workspace's rule).
  schedule: writes(holdsOrGranted('manageWorkspace')),
  // So is its webhook, with the events it reacts to (Terrakube checks the workspace's rule).
  webhook: writes(holdsOrGranted('manageWorkspace')),
  webhook_event: writes(holdsOrGranted('manageWorkspace')),
  // Records of the whole service, in no organization, as in Terrakube: the web UI runs the code of
  // actions on every workspace page, for any caller; federated credentials are read ("user is a
  // superuser") and written by administrators alone.
  action: { read: anyCaller, ...writes(administrator) },
  federated: { read: onlyAdministrators, ...writes(administrator) },
  federated_claim: { read: onlyAdministrators, ...writes(administrator) },
  // Who may grant: teams of the organization that manage workspaces, and administrators ("team
  // manage workspace access", "team manage project access"). Terrakube also lets a grant holder
  // with manageWorkspace (a project grant: the admin role) grant others on that workspace or
  // project; here a grant never passes itself on.
  access: needs('manageWorkspace'),
  // As in Terrakube ("team manage notification configuration"): an organization-wide configuration
  // by teams that manage workspaces; a workspace's own also by a grant with manageWorkspace on that
  // workspace (its project's grants do not reach it here). Its triggers change with it.
  notification_configuration: writes(holdsOrGranted('manageWorkspace')),
  notification_trigger: writes(holdsOrGranted('manageWorkspace')),
  project_access: needs('manageWorkspace'),
  // Terrakube: "team manage module" / "team manage provider"; a module's versions are read from git
  // by the server, and whoever may manage modules may also change them by hand.
  module: needs('manageModule'),
  module_version: needs('manageModule'),
  provider: needs('manageProvider'),
  version: needs('manageProvider'),
  implementation: needs('manageProvider'),
  // Terrakube: "team plan job" to start a run (a team of the organization, or a grant on the job's
  // workspace or its project); "manage job" (planJob or approveJob) to change one, where approving
  // or rejecting also needs approveJob (the job's own rules). Deleting runs, which Terrakube's
  // clients never do, is left to administrators. Steps are the server's.
  job: { create: holdsOrGranted('planJob'), update: holdsOrGrantedOneOf(['planJob', 'approveJob']), delete: administrator },
  step: writes(serverOnly),
  // Written by the state backend alone, as Terrakube's API does (its `history` is read-only there too).
  history: writes(serverOnly),
  // The audit trail: written by the unit of work of each change alone, and never changed. Who reads
  // an organization's is the team flag readAuditTrail (its declaration's readFlag); the whole
  // service's, administrators.
  audit_event: writes(serverOnly),
  audit_trail: { read: onlyAdministrators, ...writes(serverOnly) },
};

/**
 * Who may create and revoke team and personal API tokens: a team token speaks for its team, so its
 * members (and administrators) create and revoke it; a personal token is its owner's. Every token
 * of every owner, revoked and expired ones too, is for administrators alone.
 */
export const tokenPolicies: TokenRules = {
  create: holdsToken,
  revoke: holdsToken,
  administer: administrator,
};

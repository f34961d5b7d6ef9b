import { administrator, holds, writes, type TokenRules, type WriteRules } from '../policy/rules.js';
import { holdsToken } from '../policy/tokens.js';
import type { Capability } from './team.js';

const needs = (capability: Capability) => writes(holds(capability));

/**
 * Who may create, update and delete each record: the one table of write authorization. Reads are
 * not here: every read is confined to the caller's organizations in its SQL (policy/tenancy.ts),
 * and secrets are never read back.
 */
export const writePolicies: Record<string, WriteRules> = {
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
  workspace: needs('manageWorkspace'),
  variable: needs('manageWorkspace'),
  vcs: needs('manageVcs'),
  // As in Terrakube: projects need what workspaces need ("team manage project" checks
  // manageWorkspace), attaching a tag is a change of the workspace, and SSH keys are managed with
  // VCS connections ("team manage ssh" checks manageVcs).
  project: needs('manageWorkspace'),
  workspacetag: needs('manageWorkspace'),
  ssh: needs('manageVcs'),
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

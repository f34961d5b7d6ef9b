import { defineResource, flag, text, toOne, type Attribute, type Grant } from '../model/index.js';
import { grantsWithin, role, type Capability } from './team.js';

/** What a team's grant on one workspace or project may give, as Terrakube's access records hold it. */
const grantable = ['manageState', 'manageWorkspace', 'manageJob', 'planJob', 'approveJob'] as const satisfies readonly Capability[];

/** The attributes of a grant: the team (directory group) it names, and its role or flags. */
export const grantAttributes: Record<string, Attribute> = {
  name: text({ required: true, max: 128 }),
  role: role(),
  ...Object.fromEntries(grantable.map((capability) => [capability, flag(false)])),
};

/** How a grant's record gives its group capabilities; `reaches` as the Grant declares it. */
export const grantRules = (reaches?: Grant['reaches']): Grant => ({
  groupAttribute: 'name',
  capabilities: grantable,
  grants: grantsWithin(grantable),
  ...(reaches === undefined ? {} : { reaches }),
});

/**
 * Terrakube's workspace team access: the members of one directory group (`name`, which need not be
 * a team of the organization) may read this workspace and what is in it, and do what the role or
 * the flags give, here and nowhere else. One grant per group and workspace.
 */
export const access = defineResource({
  type: 'access',
  table: 'access',
  parent: 'workspace',
  attributes: grantAttributes,
  relationships: {
    workspace: toOne('workspace', 'workspace_id'),
  },
  unique: ['name'],
  // A workspace's own notification configurations are records of its organization that link it.
  grant: grantRules([{ type: 'notification_configuration', through: 'workspace' }]),
});

import { defineResource, flag, oneOf, text, toOne } from '../engine/declaration.js';

/**
 * A team grants the members of one directory group (its name, matched against the token's groups)
 * what its role or, for a custom role, its flags allow in the organization.
 */
export const team = defineResource({
  type: 'team',
  table: 'team',
  parent: { type: 'organization', relationship: 'organization' },
  attributes: {
    name: text({ required: true, max: 128 }),
    // null means custom: the flags decide.
    role: oneOf(['admin', 'write', 'plan', 'read', 'custom'], { default: null }),
    manageState: flag(false),
    manageWorkspace: flag(false),
    manageModule: flag(false),
    manageProvider: flag(false),
    manageVcs: flag(false),
    manageTemplate: flag(false),
    manageJob: flag(false),
    manageCollection: flag(false),
    planJob: flag(false),
    approveJob: flag(false),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
  },
  write: { administratorOnly: true },
});

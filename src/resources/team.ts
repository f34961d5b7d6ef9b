import { columnOf, defineResource, flag, isTrue, oneOf, text, toOne, type Row } from '../model/index.js';

/** What a team may do inside an organization: its permission flags, as Terrakube names them. */
export const capabilities = [
  'manageState',
  'manageWorkspace',
  'manageModule',
  'manageProvider',
  'manageVcs',
  'manageTemplate',
  'manageJob',
  'manageCollection',
  'planJob',
  'approveJob',
] as const;
export type Capability = (typeof capabilities)[number];

/** What each team role grants, as in Terrakube; a team without a role (custom) grants its flags. */
const roles: Record<string, readonly Capability[]> = {
  admin: capabilities,
  write: ['manageWorkspace', 'manageState', 'planJob', 'approveJob'],
  plan: ['planJob'],
  read: [],
};

function grants(team: Row): Capability[] {
  const role = typeof team.role === 'string' ? team.role : 'custom';
  const granted = roles[role] ?? capabilities.filter((capability) => isTrue(team[columnOf(capability)]));
  // Terrakube treats managing jobs as planning or approving them.
  return granted.includes('planJob') || granted.includes('approveJob') ? [...new Set<Capability>([...granted, 'manageJob'])] : [...granted];
}

/**
 * A team grants the members of one directory group (its name, matched against the token's groups)
 * what its role or, for a custom role, its flags allow in the organization.
 */
export const team = defineResource({
  type: 'team',
  table: 'team',
  parent: 'organization',
  attributes: {
    name: text({ required: true, max: 128 }),
    // null means custom: the flags decide.
    role: oneOf(['admin', 'write', 'plan', 'read', 'custom'], { default: null }),
    ...Object.fromEntries(capabilities.map((capability) => [capability, flag(false)])),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
  },
  unique: ['name'],
  membership: { groupAttribute: 'name', capabilities, grants },
});

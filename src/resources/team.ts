import { columnOf, defineResource, flag, isTrue, oneOf, text, toOne, type Attribute, type Row } from '../model/index.js';

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

/** What each role grants, as in Terrakube; a record without a role (custom) grants its flags. */
const roles: Record<string, readonly Capability[]> = {
  admin: capabilities,
  write: ['manageWorkspace', 'manageState', 'planJob', 'approveJob'],
  plan: ['planJob'],
  read: [],
};

/** The role of a team or of a team's grant: null means custom, where the flags decide. */
export const role = (): Attribute => oneOf(['admin', 'write', 'plan', 'read', 'custom'], { default: null });

/**
 * What a record with a role and flags grants, of the capabilities in `scope` (a grant on one
 * workspace or project has no say over templates or VCS connections, whatever its role).
 */
export function grantsWithin(scope: readonly Capability[]): (record: Row) => Capability[] {
  return (record) => {
    const named = typeof record.role === 'string' ? roles[record.role] : undefined;
    const granted = (named ?? capabilities.filter((capability) => isTrue(record[columnOf(capability)]))).filter((c) => scope.includes(c));
    // Terrakube treats managing jobs as planning or approving them.
    const managesJobs = scope.includes('manageJob') && (granted.includes('planJob') || granted.includes('approveJob'));
    return managesJobs ? [...new Set<Capability>([...granted, 'manageJob'])] : granted;
  };
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
    role: role(),
    ...Object.fromEntries(capabilities.map((capability) => [capability, flag(false)])),
    // Not Terrakube's, and no capability over records: its members read the organization's audit trail.
    readAuditTrail: flag(false),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
  },
  unique: ['name'],
  membership: { groupAttribute: 'name', capabilities, grants: grantsWithin(capabilities) },
});

import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { columnOf } from '../engine/declaration.js';
import type { Database, Row } from '../store/database.js';
import type { Caller } from './caller.js';

/** What a team may do inside an organization, as decisions.md names the team flags. */
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

const everything: ReadonlySet<Capability> = new Set(capabilities);

/** What each team role grants, as in Terrakube; a team without a role (custom) grants its flags. */
const roleCapabilities: Record<string, readonly Capability[]> = {
  admin: capabilities,
  write: ['manageWorkspace', 'manageState', 'planJob', 'approveJob'],
  plan: ['planJob'],
  read: [],
};

/** The capabilities one team row grants. */
export function teamCapabilities(team: Row): Capability[] {
  const role = typeof team.role === 'string' ? team.role : 'custom';
  const granted = roleCapabilities[role] ?? capabilities.filter((capability) => Number(team[columnOf(capability)]) === 1);
  // Terrakube treats managing jobs as planning or approving them.
  return granted.includes('planJob') || granted.includes('approveJob') ? [...new Set<Capability>([...granted, 'manageJob'])] : [...granted];
}

/**
 * Which organizations the caller may read, as a SQL predicate on an organization id column, so that
 * read authorization is part of every query and paging totals count only what the caller sees.
 *
 * Administrators read every organization; anyone else reads those where one of its groups names a team.
 */
export function readableOrganization(caller: Caller, organizationId: Expression<unknown>): Expression<SqlBool> {
  if (caller.isAdministrator) return sql<SqlBool>`1 = 1`;
  if (caller.groups.length === 0) return sql<SqlBool>`1 = 0`;
  return sql<SqlBool>`exists (select 1 from team as member_team where member_team.organization_id = ${organizationId} and member_team.name in (${sql.join(caller.groups)}))`;
}

/**
 * The capabilities the caller holds in one organization it can read: every one for administrators,
 * otherwise the union of what its teams there grant.
 */
export async function capabilitiesIn(db: Kysely<Database>, caller: Caller, organizationId: string): Promise<ReadonlySet<Capability>> {
  if (caller.isAdministrator) return everything;
  if (caller.groups.length === 0) return new Set();
  const teams = await db.selectFrom('team').selectAll().where('organization_id', '=', organizationId).where('name', 'in', caller.groups).execute();
  return new Set(teams.flatMap(teamCapabilities));
}

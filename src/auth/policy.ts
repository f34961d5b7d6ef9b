import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../store/database.js';
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
const nothing: ReadonlySet<Capability> = new Set();

/**
 * Which organizations the caller may read, as a SQL predicate on an organization id column, so that
 * read authorization is part of every query and paging totals count only what the caller sees.
 *
 * Administrators read every organization. Everyone else reads the organizations it is a member of
 * through a team; team records do not exist yet, so a non-administrator reads none.
 */
export function readableOrganization(caller: Caller, _organizationId: Expression<unknown>): Expression<SqlBool> {
  return caller.isAdministrator ? sql<SqlBool>`1 = 1` : sql<SqlBool>`1 = 0`;
}

/**
 * The capabilities the caller holds in one organization it can read. Administrators hold every
 * capability; team grants join here once teams exist.
 */
export function capabilitiesIn(
  _db: Kysely<Database>,
  caller: Caller,
  _organizationId: string,
): Promise<ReadonlySet<Capability>> {
  return Promise.resolve(caller.isAdministrator ? everything : nothing);
}

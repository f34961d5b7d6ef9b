import type { Caller } from '../auth/caller.js';
import type { TrackedKind } from '../auth/tokens.js';
import { forbidden } from '../errors.js';

/** Who a stored API token belongs to. */
export interface TokenHolder {
  kind: TrackedKind;
  /** The team (directory group) a team token speaks for; null for a personal token. */
  group: string | null;
  /** The subject that created the token. */
  owner: string;
}

/** A team token speaks for one group: only its members, and administrators, may create one. */
export function authorizeTokenCreation(caller: Caller, group: string | undefined): void {
  if (group !== undefined && !caller.isAdministrator && !caller.groups.includes(group)) {
    throw forbidden(`Only members of ${group} (or administrators) may create its tokens.`);
  }
}

/**
 * Which tokens a caller's list shows: team tokens of its groups (every group for administrators),
 * and its own personal tokens.
 */
export function listedTokens(caller: Caller, kind: TrackedKind): { owner: string } | { groups: readonly string[] } | 'all' {
  if (kind === 'personal') return { owner: caller.subject };
  return caller.isAdministrator ? 'all' : { groups: caller.groups };
}

/** A token may be revoked by administrators, a member of its team, or the owner of a personal token. */
export function mayRevokeToken(caller: Caller, token: TokenHolder): boolean {
  if (caller.isAdministrator) return true;
  return token.group === null ? token.owner === caller.subject : caller.groups.includes(token.group);
}

/**
 * Every team and personal token of every owner, live or not, is listed and revoked by
 * administrators alone: the lists above show each caller only its own and its groups'.
 */
export function authorizeTokenAdministration(caller: Caller): void {
  if (!caller.isAdministrator) throw forbidden('Only administrators may list and revoke every token.');
}

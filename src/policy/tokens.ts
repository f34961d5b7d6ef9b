import type { Caller } from '../auth/caller.js';
import type { TrackedKind } from '../auth/tokens.js';
import type { Rule, TokenContext } from './rules.js';

/**
 * Administrators, members of the team a team token speaks for, and the owner of a personal token:
 * a team token is its team's, shared by its members, and a personal one its creator's alone.
 */
export const holdsToken: Rule<TokenContext> = {
  name: 'holds the token',
  requires: [],
  allows: ({ caller, token }) => {
    if (caller.isAdministrator) return true;
    return token.group === null ? token.owner === caller.subject : caller.groups.includes(token.group);
  },
  denial: (type) => `Only members of the team a ${type} speaks for (or administrators) may create or revoke it.`,
};

/**
 * Which tokens a caller's list shows: team tokens of its groups (every group for administrators),
 * and its own personal tokens. A filter of the list rather than a rule: nothing is refused.
 */
export function listedTokens(caller: Caller, kind: TrackedKind): { owner: string } | { groups: readonly string[] } | 'all' {
  if (kind === 'personal') return { owner: caller.subject };
  return caller.isAdministrator ? 'all' : { groups: caller.groups };
}

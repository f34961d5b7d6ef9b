/** The identity behind a request, taken from its verified bearer token. */
export interface Caller {
  subject: string;
  email: string | undefined;
  name: string | undefined;
  groups: readonly string[];
  isAdministrator: boolean;
  /**
   * The token the caller authenticated with: when it is an API token, a token the caller creates
   * records it as its parent and never outlives it.
   */
  token: CallerToken;
}

/**
 * What kind of credential a caller presented, as the audit trail names it: a team or personal API
 * token, a token this service signed otherwise (the CLI's login, a test's), the OIDC issuer's, a
 * job's state credential, an agent's token (runner API alone), the operator's console, or the service itself.
 */
export type TokenKind = 'teamToken' | 'personalToken' | 'signed' | 'oidc' | 'stateCredential' | 'agentToken' | 'console' | 'service';

export interface CallerToken {
  kind: TokenKind;
  /** Its API-token record (the `jti` of a team or personal token); undefined for other tokens. */
  trackedId: string | undefined;
  /** When it expires (its `exp`); undefined for a token that never expires. */
  expiresAt: Date | undefined;
}

/** The name written into createdBy and updatedBy: the email claim, else the subject. */
export function auditName(caller: Caller): string {
  return caller.email ?? caller.subject;
}

/**
 * Who per-caller bounds count (rate limits, long-lived connections): the person, team or job behind
 * a token, whichever of its tokens it sends, so minting more tokens buys no more.
 */
export function callerIdentity(caller: Caller): string {
  return `${caller.token.kind} ${caller.subject}`;
}

/**
 * A caller that is a credential rather than a person (a job's state credential, an agent's token):
 * in no group and no administrator, so it reaches nothing but the one door that takes it.
 */
export function credentialCaller(subject: string, kind: 'stateCredential' | 'agentToken'): Caller {
  return {
    subject,
    email: undefined,
    name: undefined,
    groups: [],
    isAdministrator: false,
    token: { kind, trackedId: undefined, expiresAt: undefined },
  };
}

/** The service itself as the caller, for work no token asked for (the executor, deliveries, recovery). */
export const serviceCaller: Caller = {
  subject: 'stratum',
  email: undefined,
  name: 'Stratum',
  groups: [],
  isAdministrator: true,
  token: { kind: 'service', trackedId: undefined, expiresAt: undefined },
};

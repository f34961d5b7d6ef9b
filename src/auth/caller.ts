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

export interface CallerToken {
  /** Its API-token record (the `jti` of a team or personal token); undefined for other tokens. */
  trackedId: string | undefined;
  /** When it expires (its `exp`); undefined for a token that never expires. */
  expiresAt: Date | undefined;
}

/** The name written into createdBy and updatedBy: the email claim, else the subject. */
export function auditName(caller: Caller): string {
  return caller.email ?? caller.subject;
}

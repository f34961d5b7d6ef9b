/** The identity behind a request, taken from its verified bearer token. */
export interface Caller {
  subject: string;
  email: string | undefined;
  name: string | undefined;
  groups: readonly string[];
  isAdministrator: boolean;
}

/** The name written into createdBy and updatedBy: the email claim, else the subject. */
export function auditName(caller: Caller): string {
  return caller.email ?? caller.subject;
}

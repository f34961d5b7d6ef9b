/**
 * How a request presents its token, read in one place for every door: `Authorization: Bearer
 * <token>` everywhere, and at the state backend also `Basic base64(user:token)`, which Terraform's
 * `http` backend sends (the user name is not read). The live channel reads the same header from
 * its connection parameters.
 */
export interface CredentialForms {
  /** Whether Basic auth whose password is a token is taken too. */
  basic: boolean;
}

/** Why no token could be read: none was sent, or the header is not one of the forms taken. */
export interface CredentialProblem {
  /** Nothing was sent: a client that sends its token only when challenged is asked for one. */
  missing: boolean;
  detail: string;
}

/** The token a request's Authorization header presents, or why it presents none. */
export function presentedToken(header: string | undefined, forms: CredentialForms): string | CredentialProblem {
  if (header === undefined || header.trim() === '')
    return {
      missing: true,
      detail: forms.basic
        ? 'Credentials are required: Basic auth whose password is a Stratum token, or a bearer token.'
        : 'A bearer token is required.',
    };
  if (forms.basic) {
    const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)?.[1];
    if (basic !== undefined) {
      const decoded = Buffer.from(basic, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const password = colon < 0 ? '' : decoded.slice(colon + 1);
      return password === '' ? { missing: false, detail: 'The Basic auth password must be a Stratum token.' } : password;
    }
  }
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (bearer !== undefined) return bearer;
  return {
    missing: false,
    detail: forms.basic
      ? 'The Authorization header must be "Basic <credentials>" or "Bearer <token>".'
      : 'The Authorization header must be "Bearer <token>".',
  };
}

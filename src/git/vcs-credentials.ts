import type { ResourceDeclaration, SecretReader } from '../model/index.js';
import type { GitCredential, GitRemote } from './remote.js';

/**
 * How each VCS provider takes a token over HTTPS, by the connection's `vcsType`: the user name it
 * expects beside the token in basic authentication. A provider added here is a row; an unknown
 * type gets GitHub's, which most hosts accept.
 */
const providers: Readonly<Record<string, { username: string }>> = {
  GITHUB: { username: 'x-access-token' },
  GITLAB: { username: 'oauth2' },
  BITBUCKET: { username: 'x-token-auth' },
  AZURE_DEVOPS: { username: 'x-access-token' },
};

/** The records that hold a repository's credentials: SSH keys and VCS connections. */
export interface CredentialRecords {
  ssh: ResourceDeclaration;
  vcs: ResourceDeclaration;
}

/**
 * A repository and the credential of the SSH key or VCS connection a record (a module, a
 * workspace) links: the key first, then the connection's token, else none.
 */
export async function remoteOf(
  secrets: SecretReader,
  records: CredentialRecords,
  url: string,
  sshId: unknown,
  vcsId: unknown,
): Promise<GitRemote> {
  if (typeof sshId === 'string') {
    const key = await secrets.withSecrets(records.ssh, sshId);
    if (typeof key?.private_key === 'string') return { url, credential: { kind: 'key', privateKey: key.private_key } };
  }
  if (typeof vcsId === 'string') {
    const connection = await secrets.withSecrets(records.vcs, vcsId);
    const token = connection?.access_token;
    if (typeof token === 'string' && token !== '') return { url, credential: tokenCredential(String(connection?.vcs_type), token) };
  }
  return { url };
}

function tokenCredential(vcsType: string, token: string): GitCredential {
  const { username } = providers[vcsType] ?? { username: 'x-access-token' };
  return { kind: 'token', username, token };
}

import type { ResourceDeclaration, SecretReader } from '../model/index.js';
import { sourceHost } from './git-destinations.js';
import type { GitCredential, GitRemote } from './remote.js';

/**
 * How each VCS provider takes a token over HTTPS, by the connection's `vcsType`: the user name it
 * expects beside the token in basic authentication, and the host of its cloud service, where the
 * token goes when the connection names no `endpoint` of its own. A provider added here is a row; an
 * unknown type gets GitHub's user name, and no host: its connection must name its endpoint.
 */
const providers: Readonly<Record<string, { username: string; host?: string }>> = {
  GITHUB: { username: 'x-access-token', host: 'github.com' },
  GITLAB: { username: 'oauth2', host: 'gitlab.com' },
  BITBUCKET: { username: 'x-token-auth', host: 'bitbucket.org' },
  AZURE_DEVOPS: { username: 'x-access-token', host: 'dev.azure.com' },
};

/** The records that hold a repository's credentials: SSH keys and VCS connections. */
export interface CredentialRecords {
  ssh: ResourceDeclaration;
  vcs: ResourceDeclaration;
}

/**
 * A repository and the credential of the SSH key or VCS connection a record (a module, a
 * workspace) links: the key first, then the connection's token, else none. The token goes only to
 * its connection's own host (its `endpoint`'s, else its provider's cloud service): a source on
 * another host is read without it, so pointing a workspace at one's own server does not collect
 * the organization's token.
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
    const vcsType = String(connection?.vcs_type);
    if (typeof token === 'string' && token !== '' && sameHost(url, tokenHost(vcsType, connection?.endpoint)))
      return { url, credential: tokenCredential(vcsType, token) };
  }
  return { url };
}

/** The host a connection's token belongs to (with its port when the endpoint names one); undefined when none is known. */
function tokenHost(vcsType: string, endpoint: unknown): string | undefined {
  if (typeof endpoint === 'string' && endpoint.trim() !== '') return hostOf(endpoint.trim());
  return providers[vcsType]?.host;
}

/** The host and port of an http(s) URL, as sourceHost reads them; undefined for another form (scp-like SSH, a path). */
function hostOf(url: string): string | undefined {
  const source = sourceHost(url);
  if (source === undefined || (source.protocol !== 'https:' && source.protocol !== 'http:')) return undefined;
  return source.port === undefined ? source.host : `${source.host}:${source.port}`;
}

function sameHost(url: string, host: string | undefined): boolean {
  return host !== undefined && hostOf(url) === host;
}

function tokenCredential(vcsType: string, token: string): GitCredential {
  const { username } = providers[vcsType] ?? { username: 'x-access-token' };
  return { kind: 'token', username, token };
}

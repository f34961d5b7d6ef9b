import { Destinations } from '../outbound/destinations.js';
import { GitFailure } from './git-command.js';

/**
 * Where git may connect: the same policy as every outbound call (STRATUM_OUTBOUND_ALLOW lists the
 * loopback and private hosts and ranges beside public ones; link-local and metadata addresses
 * never), so a workspace or module source cannot make the server or an executor scan its own
 * network. Set once per process at start (`stratum serve`, `stratum executor`); until then nothing
 * internal is reachable.
 */
let destinations = new Destinations([]);

export function allowGitDestinations(allowed: Destinations): void {
  destinations = allowed;
}

/** How git reaches a source's host: the address checked, pinned for the connection, so a second lookup cannot slip past. */
export interface GitTransport {
  /** Git configuration entries for HTTP(S): the pinned address, and no redirect to another host. */
  config: [string, string][];
  /** Options of the ssh command for SSH sources: the pinned address. */
  ssh: string[];
}

/**
 * The host (lower-cased, an IPv6 address without its brackets), port (none when the scheme's own)
 * and scheme of a source or endpoint URL: `https://h:p/...`, `ssh://u@h:p/...` or `git@h:path`;
 * undefined for text that is none of them.
 */
export function sourceHost(url: string): { host: string; port: number | undefined; protocol: string } | undefined {
  const scp = /^git@([A-Za-z0-9.-]+):/.exec(url);
  if (scp !== null) return { host: (scp[1] ?? '').toLowerCase(), port: undefined, protocol: 'ssh:' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port === '' ? undefined : Number(parsed.port),
    protocol: parsed.protocol,
  };
}

/** Checks a source's host against the policy and answers how git connects to it; a refused host is a GitFailure naming why. */
export async function gitTransport(url: string): Promise<GitTransport> {
  const source = sourceHost(url);
  if (source === undefined) throw new GitFailure('The source is not a git URL.', false);
  const { host, port, protocol } = source;
  const resolved = await destinations.resolve(host);
  if ('refused' in resolved) throw new GitFailure(`The source's host ${resolved.refused}.`, false);
  if (protocol === 'ssh:') return { config: [], ssh: ['-o', `HostName=${resolved.address}`] };
  const address = resolved.family === 6 ? `[${resolved.address}]` : resolved.address;
  const defaultPort = protocol === 'https:' ? 443 : 80;
  return {
    config: [
      ['http.curloptResolve', `${host}:${port ?? defaultPort}:${address}`],
      // A redirect could lead anywhere the check above did not look.
      ['http.followRedirects', 'false'],
    ],
    ssh: [],
  };
}

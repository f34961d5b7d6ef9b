import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitFailure, runGit } from './git-command.js';
import { gitTransport } from './git-destinations.js';

/** How git proves who it is to a remote: a token over HTTPS, or a private SSH key. */
export type GitCredential = { kind: 'token'; username: string; token: string } | { kind: 'key'; privateKey: string };

/** A repository to read, and what to read it with. */
export interface GitRemote {
  url: string;
  credential?: GitCredential;
}

/** Bounds on one conversation with a remote. */
export interface GitLimits {
  timeoutMs: number;
  /** The most tags listed; a remote with more is refused rather than half read. */
  maxTags: number;
  /** The largest file read out of a tag. */
  maxFileBytes: number;
  /** The largest zip of a folder made at a tag; a larger one is refused rather than held in memory. */
  maxArchiveBytes: number;
}

export const defaultGitLimits: GitLimits = {
  timeoutMs: 60_000,
  maxTags: 500,
  maxFileBytes: 1024 * 1024,
  maxArchiveBytes: 32 * 1024 * 1024,
};

export interface GitTag {
  name: string;
  commit: string;
}

/** The files of fetched tags, read locally. */
export interface TagTree {
  /** The names of the files directly in `folder` at `tag` ('' for the root). */
  files(tag: string, folder: string): Promise<string[]>;
  /** A file's text at `tag`; undefined when it is absent or larger than the limit. */
  read(tag: string, path: string): Promise<string | undefined>;
  /** The object the tag names (the commit, or the tag object of an annotated tag), as `git ls-remote` lists it. */
  target(tag: string): Promise<string>;
  /**
   * A zip of `folder` at `tag` ('' for the root), its files at the top of the archive, by `git
   * archive`; refused (GitFailure) when it would be larger than the limit.
   */
  archive(tag: string, folder: string): Promise<Buffer>;
}

/**
 * Why a text cannot be a git source Stratum reads: only HTTPS (or HTTP), SSH URLs and the scp-like
 * `git@host:path` form; never a path or a file:// URL of the server's disk, nor an option.
 */
export function gitSourceProblem(url: string): string | undefined {
  if (/^git@[A-Za-z0-9.-]+:[^\s]+$/.test(url)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a git URL (https://host/path.git, ssh://git@host/path.git or git@host:path.git)';
  }
  if (!['https:', 'http:', 'ssh:'].includes(parsed.protocol)) return `uses ${parsed.protocol.slice(0, -1)}, not https or ssh`;
  if (parsed.hostname === '') return 'names no host';
  if (parsed.password !== '') return 'holds a password: link a VCS connection or an SSH key instead';
  return undefined;
}

/**
 * What a save and a run both answer for a source git must not read, in the same words: a workspace
 * is refused when saved as its run would be refused.
 */
export function gitSourceRefusal(url: string): string | undefined {
  const problem = gitSourceProblem(url);
  return problem === undefined ? undefined : `The source ${problem}.`;
}

/** The tags of a remote, by `git ls-remote`: no clone, and bounded like every call. */
export async function listTags(remote: GitRemote, limits: GitLimits = defaultGitLimits): Promise<GitTag[]> {
  const output = await withCredential(remote, (env, secrets) =>
    runGit({
      args: ['ls-remote', '--tags', '--refs', remote.url],
      env,
      secrets,
      timeoutMs: limits.timeoutMs,
      maxBytes: limits.maxTags * 400,
    }),
  );
  const tags: GitTag[] = [];
  for (const line of output.toString('utf8').split('\n')) {
    const match = /^([0-9a-f]{40,64})\trefs\/tags\/(.+)$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) tags.push({ commit: match[1], name: match[2] });
  }
  if (tags.length > limits.maxTags) throw new GitFailure(`the repository has more than ${limits.maxTags} tags`, false);
  return tags;
}

/**
 * Fetches the commits of `tags` (one level deep, in one conversation) into a temporary repository,
 * lets `use` read their files, and removes it.
 */
export async function readTags<T>(
  remote: GitRemote,
  tags: readonly string[],
  use: (tree: TagTree) => Promise<T>,
  limits: GitLimits = defaultGitLimits,
): Promise<T> {
  const folder = await mkdtemp(join(tmpdir(), 'stratum-git-'));
  try {
    const local = (args: string[], maxBytes = limits.maxFileBytes) =>
      runGit({ args: ['--git-dir', folder, ...args], env: {}, secrets: [], timeoutMs: limits.timeoutMs, maxBytes });
    await local(['init', '--quiet', '--bare']);
    if (tags.length > 0) {
      const refspecs = tags.map((tag) => `+refs/tags/${tag}:refs/tags/${tag}`);
      await withCredential(remote, (env, secrets) =>
        runGit({
          args: ['--git-dir', folder, 'fetch', '--quiet', '--depth=1', '--no-tags', remote.url, ...refspecs],
          env,
          secrets,
          timeoutMs: limits.timeoutMs,
          maxBytes: 64 * 1024,
        }),
      );
    }
    const treeOf = (tag: string, path: string) => (path === '' ? `refs/tags/${tag}^{tree}` : `refs/tags/${tag}:${path}`);
    return await use({
      files: async (tag, path) => {
        const tree = treeOf(tag, path);
        const listing = await local(['ls-tree', '-z', '--name-only', tree], 4 * 1024 * 1024).catch(() => Buffer.alloc(0));
        return listing
          .toString('utf8')
          .split('\0')
          .filter((name) => name !== '');
      },
      read: async (tag, path) => {
        const object = `refs/tags/${tag}:${path}`;
        const size = await local(['cat-file', '-s', object], 64).catch(() => undefined);
        if (size === undefined || Number(size.toString('utf8').trim()) > limits.maxFileBytes) return undefined;
        return (await local(['cat-file', 'blob', object])).toString('utf8');
      },
      target: async (tag) => (await local(['rev-parse', '--verify', '--quiet', `refs/tags/${tag}`], 256)).toString('utf8').trim(),
      archive: (tag, path) =>
        local(['archive', '--format=zip', treeOf(tag, path)], limits.maxArchiveBytes).catch((error: unknown) => {
          if (error instanceof GitFailure && !error.remote && error.message.includes('more than'))
            throw new GitFailure(`the archive is larger than ${Math.round(limits.maxArchiveBytes / 1024 / 1024)} MiB`, false);
          throw error;
        }),
    });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * Runs `call` with the environment that reaches and authenticates git's remote: the host checked
 * against the outbound policy and its address pinned (git-destinations.ts), then an HTTP header
 * given through git's environment configuration (never in the URL, a file or the command line), or
 * a key file of mode 0600 in a temporary folder removed afterwards.
 */
export async function withCredential<T>(
  remote: GitRemote,
  call: (env: Record<string, string>, secrets: string[]) => Promise<T>,
): Promise<T> {
  const refusal = gitSourceRefusal(remote.url);
  if (refusal !== undefined) throw new GitFailure(refusal, false);
  const transport = await gitTransport(remote.url);
  const credential = remote.credential;
  const ssh = (options: string) => `ssh ${[...transport.ssh, options].join(' ').trim()}`;
  if (credential === undefined)
    return call({ ...configEnv(transport.config), ...(transport.ssh.length > 0 ? { GIT_SSH_COMMAND: ssh('-o BatchMode=yes') } : {}) }, []);
  if (credential.kind === 'token') {
    const basic = Buffer.from(`${credential.username}:${credential.token}`).toString('base64');
    return call(configEnv([...transport.config, ['http.extraHeader', `Authorization: Basic ${basic}`]]), [credential.token, basic]);
  }
  const folder = await mkdtemp(join(tmpdir(), 'stratum-ssh-'));
  try {
    const key = join(folder, 'key');
    const text = credential.privateKey.endsWith('\n') ? credential.privateKey : `${credential.privateKey}\n`;
    await writeFile(key, text, { mode: 0o600 });
    await chmod(key, 0o600);
    // Host keys are not pinned: each call trusts the key the host shows (documented in docs/behaviour.md).
    // LogLevel=ERROR keeps ssh's note of the host key it added (every call adds one) out of the reasons a failure gives.
    const command = ssh(
      `-i '${key}' -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=accept-new -o UserKnownHostsFile='${join(folder, 'known_hosts')}' -o LogLevel=ERROR`,
    );
    return await call({ GIT_SSH_COMMAND: command }, [credential.privateKey]);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** Git configuration given through its environment (never a file or the command line, where another process could read it). */
function configEnv(entries: readonly [string, string][]): Record<string, string> {
  if (entries.length === 0) return {};
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(entries.length) };
  for (const [index, [key, value]] of entries.entries()) {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  }
  return env;
}

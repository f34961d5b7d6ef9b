import { mkdir, readdir } from 'node:fs/promises';
import { GitFailure, runGit } from './git-command.js';
import { defaultGitLimits, withCredential, type GitLimits, type GitRemote } from './remote.js';

/** A branch or tag name git accepts as one, and that cannot pass for an option or a path outside refs. */
export function refNameProblem(ref: string): string | undefined {
  if (ref === '' || ref.length > 255) return 'is empty or longer than 255 characters';
  if (ref.startsWith('-') || ref.startsWith('/') || ref.endsWith('/') || ref.endsWith('.lock')) return 'is not a branch name';
  if (ref.includes('..') || ref.includes('@{') || ref.includes('//') || !/^[A-Za-z0-9._/+-]+$/.test(ref)) {
    return 'is not a branch name (letters, digits and . _ / + - only)';
  }
  return undefined;
}

/**
 * Checks out the newest commit of a branch (or tag) of a remote into `directory`, which must be
 * empty or absent: one commit deep, without submodules, and with no trace of the credential left in
 * the folder (it goes to git through its environment, and the folder's repository names no remote).
 * Answers the commit checked out.
 */
export async function checkout(remote: GitRemote, ref: string, directory: string, limits: GitLimits = defaultGitLimits): Promise<string> {
  const problem = refNameProblem(ref);
  if (problem !== undefined) throw new GitFailure(`the branch ${JSON.stringify(ref)} ${problem}`, false);
  await mkdir(directory, { recursive: true });
  if ((await readdir(directory)).length > 0) throw new GitFailure('the folder to check out into is not empty', false);
  const local = (args: string[], maxBytes = 64 * 1024) =>
    runGit({ args, cwd: directory, env: {}, secrets: [], timeoutMs: limits.timeoutMs, maxBytes });
  await local(['init', '--quiet']);
  await withCredential(remote, (env, secrets) =>
    runGit({
      args: ['fetch', '--quiet', '--depth=1', '--no-tags', '--no-recurse-submodules', remote.url, ref],
      cwd: directory,
      env,
      secrets,
      timeoutMs: limits.timeoutMs,
      maxBytes: 64 * 1024,
    }),
  );
  await local(['-c', 'advice.detachedHead=false', 'checkout', '--quiet', 'FETCH_HEAD']);
  return (await local(['rev-parse', 'HEAD'])).toString('utf8').trim();
}

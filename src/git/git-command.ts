import { spawn } from 'node:child_process';

/** Why git failed, in words fit for a client: the credentials it was given never appear in them. */
export class GitFailure extends Error {
  constructor(
    message: string,
    /** Whether the remote could not be reached or read, as opposed to a limit of Stratum's. */
    readonly remote: boolean,
  ) {
    super(message);
  }
}

export interface GitRun {
  args: readonly string[];
  cwd?: string;
  /** Variables added to a minimal environment (no HOME config, no prompts). */
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  /** The most bytes of output kept; a command printing more is stopped. */
  maxBytes: number;
  /** Texts never repeated in an error (tokens, and their encodings). */
  secrets: readonly string[];
}

/**
 * Runs the machine's `git` with a bounded time and output, in an environment that reads no user or
 * system configuration and never prompts: a hostile or slow remote costs at most `timeoutMs` and
 * `maxBytes`.
 */
export function runGit(run: GitRun): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', run.args, {
      cwd: run.cwd,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_TERMINAL_PROMPT: '0',
        GIT_ASKPASS: 'true',
        SSH_ASKPASS: 'true',
        // Only network transports: a source naming a path or file:// must not read the server's disk.
        GIT_ALLOW_PROTOCOL: 'http:https:ssh',
        LC_ALL: 'C',
        ...run.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let errors = '';
    let stopped: string | undefined;
    const stop = (why: string) => {
      stopped ??= why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop(`git took longer than ${Math.round(run.timeoutMs / 1000)} s`), run.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > run.maxBytes) stop(`git printed more than ${run.maxBytes} bytes`);
      else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (errors.length < 4096) errors += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new GitFailure(`git could not be started (${error.message}); Stratum needs git installed`, false));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (stopped !== undefined) reject(new GitFailure(stopped, stopped.includes('longer')));
      else if (code === 0) resolve(Buffer.concat(chunks));
      else reject(new GitFailure(cleanMessage(errors, run.secrets) || `git exited with ${String(code)}`, true));
    });
  });
}

/**
 * git's own words, without credentials: the secrets given, any user information in a URL, and the
 * lines git adds about hints.
 */
export function cleanMessage(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) if (secret !== '') clean = clean.split(secret).join('***');
  clean = clean.replace(/(\w+:\/\/)[^/@\s]*@/g, '$1');
  return clean
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('hint:'))
    .join('; ')
    .slice(0, 1000);
}

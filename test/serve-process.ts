import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TokenSigner } from '../src/auth/tokens.ts';
import { cliScript, createDatabase, type StoreKind } from './harness.ts';

/** A `stratum serve` process of the test's own, for what the harness hides: its signals, exit code and last lines. */
export interface ServeProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  url: string;
  env: Record<string, string>;
  /** Every stdout line so far, parsed. */
  lines: Record<string, unknown>[];
  exited: Promise<{ code: number | null; at: number }>;
  cleanup(): Promise<void>;
}

/** How the server is started: `stratum serve` directly, or through the commands the docs give. */
export type Launch = 'stratum serve' | 'npm start' | 'npx stratum serve';

const root = fileURLToPath(new URL('..', import.meta.url));

function spawnServe(launch: Launch, env: NodeJS.ProcessEnv): ChildProcessByStdio<null, Readable, Readable> {
  const options = { env, stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'] };
  if (launch === 'npm start') return spawn('npm', ['start'], { ...options, cwd: root });
  if (launch === 'npx stratum serve') return spawn('npx', ['stratum', 'serve'], { ...options, cwd: root });
  return spawn(process.execPath, [cliScript, 'serve'], options);
}

export async function startServe(
  kind: StoreKind,
  extraEnv: Record<string, string> = {},
  launch: Launch = 'stratum serve',
): Promise<ServeProcess> {
  const env: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    STRATUM_TOKEN_KEY: randomBytes(32).toString('base64url'),
    STRATUM_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-serve-')),
    DATABASE_URL: '',
    STRATUM_ENCRYPTION_KEY: '',
    ...extraEnv,
  };
  let drop = () => Promise.resolve();
  if (kind === 'postgres') {
    const database = await createDatabase();
    env.DATABASE_URL = database.url;
    env.STRATUM_ENCRYPTION_KEY = randomBytes(32).toString('base64');
    drop = database.drop;
  }
  const child = spawnServe(launch, { ...process.env, ...env });
  const lines: Record<string, unknown>[] = [];
  // 'exit' can come before the last lines have been read from stdout; 'close' comes after them.
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => {
    let at: number | undefined;
    child.once('exit', () => (at = Date.now()));
    child.once('close', (code) => resolve({ code, at: at ?? Date.now() }));
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const text = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        // npm prints the script it runs before the server's own lines.
        if (!text.startsWith('{')) continue;
        const line = JSON.parse(text) as Record<string, unknown>;
        lines.push(line);
        if (typeof line.address === 'string') resolve(line.address);
      }
    });
    void exited.then(({ code }) => reject(new Error(`stratum serve exited with ${String(code)}: ${stderr}`)));
  });
  return {
    child,
    url,
    env,
    lines,
    exited,
    cleanup: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      await drop();
      fs.rmSync(env.STRATUM_DATA_DIR ?? '', { recursive: true, force: true });
    },
  };
}

/** An administrator token signed with a server's key. */
export async function adminTokenFor(key: string): Promise<string> {
  const { token } = await new TokenSigner(key, 'STRATUM_ADMIN').sign({
    subject: 'admin@example.com',
    groups: ['STRATUM_ADMIN'],
    ttlSeconds: 600,
  });
  return token;
}

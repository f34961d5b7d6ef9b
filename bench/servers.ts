/** Starting what a benchmark measures: Stratum itself, and the bare ceiling server beside it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export type StoreKind = 'sqlite' | 'postgres';

/** A fresh store of one kind, and the environment a server and the seeding command use for it. */
export interface BenchStore {
  kind: StoreKind;
  env: Record<string, string>;
  /** The data folder (SQLite) or the connection string (PostgreSQL), as the ceiling server takes it. */
  location: string;
  drop: () => Promise<void>;
}

export async function createStore(kind: StoreKind): Promise<BenchStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-bench-'));
  const env: Record<string, string> = {
    STRATUM_DATA_DIR: dataDir,
    STRATUM_TOKEN_KEY: randomBytes(32).toString('base64url'),
    STRATUM_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    STRATUM_LOG_LEVEL: 'info',
    // The load is one token at thousands of requests a second: the limiter runs on every request
    // (its cost is measured) with limits no scenario reaches.
    STRATUM_RATE_LIMIT_READS: '10000000',
    STRATUM_RATE_LIMIT_WRITES: '10000000',
    HOST: '127.0.0.1',
    PORT: '0',
  };
  if (kind === 'sqlite') {
    return { kind, env, location: dataDir, drop: () => fs.promises.rm(dataDir, { recursive: true, force: true }) };
  }
  const base = process.env.STRATUM_BENCH_POSTGRES ?? `postgres://${os.userInfo().username}@127.0.0.1:5432/test`;
  const name = `stratum_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  env.DATABASE_URL = url.toString();
  return {
    kind,
    env,
    location: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Node's flags for both servers: the young generation `npm start` gives Stratum (docs/operations.md,
 * "Sizing"), given to the ceiling too so that a ratio compares request paths, not runtimes.
 */
const nodeFlags = ['--max-semi-space-size=32'];

export interface RunningServer {
  url: string;
  pid: number;
  /** From spawning the process to its line saying where it listens. */
  startMs: number;
  stop: () => Promise<void>;
}

/** Spawns a process and waits for the line that gives its address. */
async function spawnListening(command: string[], env: Record<string, string>, addressPattern: RegExp): Promise<RunningServer> {
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...nodeFlags, ...command], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      const address = addressPattern.exec(buffered)?.[1];
      if (address === undefined) return;
      child.stdout?.off('data', onData);
      // Keep draining the log so the server never blocks on a full pipe.
      child.stdout?.resume();
      resolve(address);
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${command.join(' ')} exited with ${String(code)}`)));
  });
  const startMs = performance.now() - started;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) {
        resolve();
        return;
      }
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url, pid: child.pid ?? 0, startMs, stop };
}

export const startStratum = (store: BenchStore) => spawnListening(['dist/server.js'], store.env, /"address":"([^"]+)"/);

export const startCeiling = (store: BenchStore) =>
  spawnListening(['--import', 'tsx', 'bench/ceiling.ts', store.kind, store.location], {}, /"address":"([^"]+)"/);

/** Resident memory of a process, in MiB. */
export function residentMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliScript } from './harness.ts';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `stratum ARGS` with the given environment on top of the test process's, in `cwd` (a new
 * empty folder by default, so that a relative ./data never lands in the checkout).
 */
export function stratum(args: string[], env: Record<string, string> = {}, cwd?: string): CliResult {
  const result = spawnSync(process.execPath, [cliScript, ...args], {
    env: { ...process.env, DATABASE_URL: '', STRATUM_TOKEN_KEY: '', STRATUM_ENCRYPTION_KEY: '', ...env },
    cwd: cwd ?? fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-cwd-')),
    encoding: 'utf8',
    timeout: 30000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The same, without blocking the test process (for commands that run beside a server in this process). */
export function stratumAsync(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliScript, ...args], {
      env: { ...process.env, DATABASE_URL: '', STRATUM_TOKEN_KEY: '', STRATUM_ENCRYPTION_KEY: '', ...env },
      cwd: fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-cwd-')),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import type { StepOutput } from './step-output.js';

export interface StepProcess {
  command: string;
  args: readonly string[];
  cwd: string;
  /** The whole environment: nothing of the service's own reaches the process unless listed. */
  env: Record<string, string>;
  output: StepOutput;
  /** How long the process may run before it is stopped as a cancelled one is. */
  timeoutMs: number;
  /** How long an interrupted process has to finish before the next, harder, stop. */
  graceMs: number;
  /** Aborting it stops the process. */
  cancel?: AbortSignal;
  /** Told the process group once it started (its leader's pid), for whoever must stop it if this process dies. */
  started?: (pid: number) => void;
}

export type StepEnd =
  | { kind: 'exited'; code: number }
  | { kind: 'interrupted' | 'timed out'; code: number | null; signal: NodeJS.Signals | null }
  | { kind: 'killed'; signal: NodeJS.Signals }
  | { kind: 'not started'; reason: string };

/** Signals a whole process group; one that is gone already needs nothing. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Runs one step's command in a process group of its own, its stdout and stderr into the step's
 * output. Stopping it (cancelled, or out of time) is what a terminal's Ctrl-C does, twice if need
 * be, then a kill: Terraform heeds a SIGINT to its group (0.13 ignores one sent to its process
 * alone), finishes what it can, writes its state and releases the lock; a second interrupt still
 * does so; only SIGKILL leaves the state locked, which the executor then unlocks. When the command
 * ends, whatever it left running in its group is killed, so no step outlives its run.
 */
export function runStepProcess(step: StepProcess): Promise<StepEnd> {
  return new Promise((resolve) => {
    if (step.cancel?.aborted === true) {
      resolve({ kind: 'interrupted', code: null, signal: null });
      return;
    }
    const child = spawn(step.command, step.args, {
      cwd: step.cwd,
      env: step.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) step.started?.(child.pid);
    let stopping: 'interrupted' | 'timed out' | undefined;
    const timers: NodeJS.Timeout[] = [];
    const stop = (why: 'interrupted' | 'timed out') => {
      if (stopping !== undefined || child.pid === undefined || child.exitCode !== null) return;
      stopping = why;
      const pid = child.pid;
      signalGroup(pid, 'SIGINT');
      timers.push(setTimeout(() => signalGroup(pid, 'SIGINT'), step.graceMs));
      timers.push(setTimeout(() => signalGroup(pid, 'SIGKILL'), 2 * step.graceMs));
    };
    const onCancel = () => stop('interrupted');
    step.cancel?.addEventListener('abort', onCancel, { once: true });
    timers.push(setTimeout(() => stop('timed out'), step.timeoutMs));

    for (const stream of [child.stdout, child.stderr]) {
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => step.output.write(decoder.write(chunk)));
      stream.on('end', () => step.output.write(decoder.end()));
    }
    child.on('exit', () => {
      // Whatever the command started and left behind goes with it; its pipes then close.
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    });
    const finish = (end: StepEnd) => {
      for (const timer of timers) clearTimeout(timer);
      step.cancel?.removeEventListener('abort', onCancel);
      resolve(end);
    };
    child.on('error', (error) => finish({ kind: 'not started', reason: error.message }));
    child.on('close', (code, signal) => {
      if (stopping !== undefined) finish({ kind: stopping, code, signal });
      else if (code !== null) finish({ kind: 'exited', code });
      else finish({ kind: 'killed', signal: signal ?? 'SIGKILL' });
    });
  });
}

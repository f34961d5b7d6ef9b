/**
 * The apply operation around the apply itself, as Terraform 1.x's local backend runs it
 * (internal/backend/local/backend_apply.go, opWait, and hook_state.go): what happens to the state
 * on an interrupt, at the end, and when the backend refuses it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { applyPlan } from './apply.ts';
import { Diagnostic, printOrder, report } from './diagnostics.ts';
import type { Interrupts } from './interrupts.ts';
import type { Plan } from './plan.ts';
import type { StateManager } from './state-manager.ts';
import { stateText, type StateV4 } from './state.ts';
import { applySummary } from './views.ts';

const earlyWriteFailed = (reason: string) =>
  new Diagnostic(
    'Error saving current state',
    `Error: ${reason}\n\nTerraform encountered an error attempting to save the state before cancelling the current operation. Once the operation is complete another attempt will be made to save the final state.`,
  );

const stateBackedUp = `The error shown above has prevented Terraform from writing the updated state to the configured backend. To allow for recovery, the state has been written to the file "errored.tfstate" in the current working directory.

Running "terraform apply" again at this point will create a forked state, making it harder to recover.

To retry writing this state, use the following command:
    terraform state push errored.tfstate
`;

export interface OperationContext {
  directory: string;
  print: (line: string) => void;
  interrupts: Interrupts;
  /** `terraform destroy`, which ends with its own summary. */
  destroyCommand: boolean;
}

/**
 * Applies the plan the way Terraform 1.x's local operation does: on the first interrupt it says it
 * is stopping, tries to persist the state at once (and once more as its state hook is told to
 * stop, after which every state update is persisted), then asks the running work to stop; at the
 * end it writes the final state, or, when the backend refuses it, writes errored.tfstate here.
 * A second interrupt cancels: no final write, and the lock is released.
 */
export async function applyAndSave(
  plan: Plan,
  current: StateV4 | undefined,
  manager: StateManager,
  context: OperationContext,
): Promise<number> {
  const { directory, print, interrupts, destroyCommand } = context;
  const stop = new AbortController();
  let stopping = false;
  let stopped: Promise<void> = Promise.resolve();
  const onHalt = () => {
    stopped = (async () => {
      print('Stopping operation...');
      await manager.persist().catch((error: unknown) => report(earlyWriteFailed(message(error))));
      stopping = true;
      await manager.persist().catch(() => undefined);
      stop.abort();
    })();
  };
  interrupts.halt.addEventListener('abort', onHalt, { once: true });
  const result = await applyPlan(plan, current, {
    directory,
    print,
    halt: interrupts.halt,
    stop: stop.signal,
    cancel: interrupts.cancel,
    stateUpdated: async (snapshot) => {
      // Once stopping, every state update is persisted: the work in flight may be all Terraform gets to record.
      const force = stopping;
      await manager.write(snapshot);
      if (force) await manager.persist().catch(() => undefined);
    },
  }).finally(() => interrupts.halt.removeEventListener('abort', onHalt));
  await stopped;
  if (interrupts.cancel.aborted) {
    report(new Diagnostic('operation canceled', ''));
    return 1;
  }
  await manager.write(result.snapshot);
  try {
    await manager.persist();
  } catch (error) {
    fs.writeFileSync(path.join(directory, 'errored.tfstate'), stateText(manager.exported(result.snapshot)));
    const saving = [
      new Diagnostic('Failed to save state', `Error saving state: ${message(error)}`),
      new Diagnostic('Failed to persist state to backend', stateBackedUp),
    ];
    for (const diagnostic of printOrder([...result.failures, ...saving])) report(diagnostic);
    return 1;
  }
  for (const failure of printOrder(result.failures)) report(failure);
  if (result.failures.length > 0) return 1;
  for (const line of applySummary(destroyCommand, result, result.snapshot)) print(line);
  return 0;
}

function message(error: unknown): string {
  if (error instanceof Diagnostic) return error.detail;
  return error instanceof Error ? error.message : String(error);
}

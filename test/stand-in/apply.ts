/**
 * Applying a plan: destroys, then creates with their local-exec provisioners run by `/bin/sh -c`
 * (output streamed line by line with Terraform's prefix), and the outputs of the result.
 * Interrupts as measured with Terraform 0.13: the first stops new work from starting and lets a
 * running provisioner finish or die of the interrupt itself (its resource is then kept as tainted);
 * a second kills the provisioner, forgets its resource and keeps no outputs.
 */
import { spawn } from 'node:child_process';
import type { Plan, ResourceChange } from './plan.ts';
import { instancesOf, nullResourceId, type Instance, type OutputV4, type StateV4 } from './state.ts';
import { Diagnostic, evaluate, unknown, type Scope } from './values.ts';

export interface ApplyResult {
  instances: Instance[];
  outputs: Record<string, OutputV4>;
  added: number;
  destroyed: number;
  failures: Diagnostic[];
}

export interface ApplyContext {
  directory: string;
  /** Aborted on the first interrupt. */
  interrupt: AbortSignal;
  /** Aborted on the second interrupt. */
  cancel: AbortSignal;
  /**
   * `terraform destroy` removes the outputs; a saved `plan -destroy` applied later leaves them as
   * they were (measured with Terraform 0.13).
   */
  destroyCommand: boolean;
  print: (line: string) => void;
}

export async function applyPlan(plan: Plan, prior: StateV4 | undefined, context: ApplyContext): Promise<ApplyResult> {
  const instances: Instance[] = instancesOf(prior);
  const failures: Diagnostic[] = [];
  let added = 0;
  let destroyed = 0;
  const ordered = [
    ...plan.resources.filter((change) => change.actions.length === 1 && change.actions[0] === 'delete'),
    ...dependenciesFirst(plan.resources.filter((change) => change.actions.includes('create'))),
  ];
  for (const change of ordered) {
    if (context.interrupt.aborted) break;
    if (change.actions.includes('delete')) {
      const index = instances.findIndex((instance) => instance.address === change.address);
      const removed = instances[index];
      if (removed !== undefined) {
        context.print(`${change.address}: Destroying... [id=${removed.attributes.id}]`);
        instances.splice(index, 1);
        context.print(`${change.address}: Destruction complete after 0s`);
        destroyed++;
      }
    }
    if (!change.actions.includes('create')) continue;
    context.print(`${change.address}: Creating...`);
    const created: Instance = {
      address: change.address,
      name: change.name,
      attributes: { id: nullResourceId(), triggers: change.after?.triggers ?? null },
      tainted: false,
    };
    for (const command of change.commands) {
      const failure = await runLocalExec(change.address, command, context);
      if (context.cancel.aborted) break;
      if (failure !== undefined) {
        created.tainted = true;
        failures.push(failure);
        break;
      }
    }
    // Cancelled, Terraform forgets the resource it was creating.
    if (context.cancel.aborted) break;
    instances.push(created);
    if (!created.tainted) {
      context.print(`${change.address}: Creation complete after 0s [id=${created.attributes.id}]`);
      added++;
    }
  }
  if (context.cancel.aborted) failures.push(new Diagnostic('operation canceled', 'A second interrupt cancelled the apply.'));
  else if (context.interrupt.aborted && failures.length === 0)
    failures.push(new Diagnostic('Execution halted', 'The apply was interrupted; the state records what finished.'));
  const outputs =
    context.cancel.aborted || context.destroyCommand ? {} : plan.destroy ? (prior?.outputs ?? {}) : evaluateOutputs(plan, instances);
  return { instances: sortedByAddress(instances), outputs, added, destroyed, failures };
}

/** One at a time where Terraform works in parallel: each resource after those it depends on. */
function dependenciesFirst(changes: ResourceChange[]): ResourceChange[] {
  const ordered: ResourceChange[] = [];
  const visit = (change: ResourceChange, path: string[]) => {
    if (ordered.includes(change)) return;
    if (path.includes(change.address)) throw new Diagnostic('Cycle', `Cycle: ${[...path, change.address].join(', ')}`);
    for (const target of change.dependsOn) {
      const dependency = changes.find((other) => other.address === target);
      if (dependency !== undefined) visit(dependency, [...path, change.address]);
    }
    ordered.push(change);
  };
  for (const change of changes) visit(change, []);
  return ordered;
}

/** Terraform writes the resources of a state sorted by address. */
function sortedByAddress(instances: Instance[]): Instance[] {
  return [...instances].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

function evaluateOutputs(plan: Plan, instances: Instance[]): Record<string, OutputV4> {
  const scope: Scope = {
    variables: new Map(Object.entries(plan.variables)),
    ids: new Map(instances.filter((instance) => !instance.tainted).map((instance) => [instance.address, instance.attributes.id])),
  };
  const outputs: Record<string, OutputV4> = {};
  for (const output of plan.outputs) {
    let value;
    try {
      value = evaluate(output.value, scope);
    } catch {
      // An output that refers to a resource this apply failed to create has no value yet.
      continue;
    }
    if (value === unknown) continue;
    outputs[output.name] = { value: value.value, type: value.type, ...(output.sensitive ? { sensitive: true as const } : {}) };
  }
  return outputs;
}

/** Terraform's local-exec: one pipe for stdout and stderr, each line prefixed; killed outright on a second interrupt. */
function runLocalExec(address: string, command: string, context: ApplyContext): Promise<Diagnostic | undefined> {
  const prefix = `${address} (local-exec): `;
  context.print(`${address}: Provisioning with 'local-exec'...`);
  context.print(`${prefix}Executing: ["/bin/sh" "-c" ${JSON.stringify(command)}]`);
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd: context.directory, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const kill = () => child.kill('SIGKILL');
    context.cancel.addEventListener('abort', kill, { once: true });
    let output = '';
    let pending = '';
    const take = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) context.print(`${prefix}${line}`);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (error) => {
      context.cancel.removeEventListener('abort', kill);
      resolve(new Diagnostic('Error running command', `Error running command '${command}': ${error.message}.`));
    });
    child.on('close', (code, signal) => {
      context.cancel.removeEventListener('abort', kill);
      if (pending !== '') context.print(`${prefix}${pending}`);
      if (code === 0) resolve(undefined);
      else
        resolve(
          new Diagnostic(
            'Error running command',
            `Error running command '${command}': ${signal === null ? `exit status ${code ?? 1}` : `signal: ${signalName(signal)}`}. Output: ${output}`,
          ),
        );
    });
  });
}

/** Go's names for the signals a provisioner most often dies of. */
function signalName(signal: NodeJS.Signals): string {
  const names: Partial<Record<NodeJS.Signals, string>> = { SIGKILL: 'killed', SIGINT: 'interrupt', SIGTERM: 'terminated' };
  return names[signal] ?? signal;
}

/**
 * Applying a plan as Terraform 1.11 applies `terraform_data`: destroys first (what depends on a
 * resource before it), then creates, replacements (destroy, then create) and updates, each after
 * what it depends on, creations running their local-exec provisioners with `/bin/sh -c` (output
 * streamed line by line with Terraform's prefix). After each resource instance is written, the whole
 * working snapshot goes to the state hook, as Terraform's PostStateUpdate does. Outputs that refer
 * to no resource are evaluated first, the others once their resources are done; one whose resource
 * failed keeps the value it had. Asked to stop, no new work starts and running provisioners are
 * killed (their resources kept as tainted); cancelled, the same happens and the result is dropped.
 */
import { spawn } from 'node:child_process';
import type { OutputBlock } from './configuration.ts';
import { attributeValues, ordered, type Plan, type ResourceChange } from './plan.ts';
import { compare, snapshotOf, terraformUuid, type DataAttributes, type Instance, type Snapshot, type StateV4 } from './state.ts';
import { Diagnostic } from './diagnostics.ts';
import { evaluate, resourcesOf, unknown, type Scope } from './values.ts';

export interface ApplyResult {
  snapshot: Snapshot;
  added: number;
  changed: number;
  destroyed: number;
  failures: Diagnostic[];
}

export interface ApplyContext {
  directory: string;
  print: (line: string) => void;
  /** Aborted on the first interrupt: no new work starts. */
  halt: AbortSignal;
  /** Aborted once Terraform asks the running work to stop (after it tried to persist the state): provisioners are killed. */
  stop: AbortSignal;
  /** Aborted on the second interrupt. */
  cancel: AbortSignal;
  /** Terraform's PostStateUpdate hook: the whole working snapshot, after each resource instance is written. */
  stateUpdated: (snapshot: Snapshot) => Promise<void>;
}

export async function applyPlan(plan: Plan, current: StateV4 | undefined, context: ApplyContext): Promise<ApplyResult> {
  const working = structuredClone(snapshotOf(current));
  const scope: Scope = { variables: new Map(Object.entries(plan.variables)), resources: new Map() };
  for (const instance of working.instances) scope.resources.set(instance.address, attributeValues(instance.attributes, instance.sensitive));
  const result: ApplyResult = { snapshot: working, added: 0, changed: 0, destroyed: 0, failures: [] };
  const pending = new Set(plan.resources.filter((change) => change.actions[0] !== 'no-op').map((change) => change.address));
  /** Resources that failed or never ran because something they need failed: what refers to them is not evaluated. */
  const failed = new Set<string>();
  let killedByStop = false;

  const deleted = new Set(plan.outputChanges.filter((change) => change.actions[0] === 'delete').map((change) => change.name));
  working.outputs = Object.fromEntries(Object.entries(working.outputs).filter(([name]) => !deleted.has(name)));
  const outputs = new Set(
    plan.configuration.outputs.filter((output) =>
      plan.outputChanges.some((change) => change.name === output.name && change.actions[0] !== 'delete'),
    ),
  );
  const evaluateReady = () => {
    for (const output of outputs) {
      const needs = resourcesOf(output.value);
      if (needs.some((address) => pending.has(address))) continue;
      outputs.delete(output);
      if (!needs.some((address) => failed.has(address))) setOutput(working, output, scope);
    }
  };
  evaluateReady();

  for (const change of [...destroysFirst(plan.resources), ...createsInOrder(plan)]) {
    if (context.halt.aborted || context.cancel.aborted) break;
    if (change.dependencies.some((address) => failed.has(address))) {
      failed.add(change.address);
      continue;
    }
    if (change.actions.includes('delete')) {
      const index = working.instances.findIndex((instance) => instance.address === change.address);
      const removed = working.instances[index];
      if (removed !== undefined) {
        context.print(`${change.address}: Destroying... [id=${removed.attributes.id}]`);
        working.instances.splice(index, 1);
        scope.resources.delete(change.address);
        context.print(`${change.address}: Destruction complete after 0s`);
        result.destroyed++;
        await context.stateUpdated(working);
      }
    }
    if (change.actions.includes('create')) {
      const outcome = await create(change, context);
      killedByStop ||= outcome.killedByStop;
      working.instances.push(outcome.instance);
      scope.resources.set(change.address, attributeValues(outcome.instance.attributes, outcome.instance.sensitive));
      if (outcome.failure === undefined) result.added++;
      else {
        result.failures.push(outcome.failure);
        failed.add(change.address);
      }
      await context.stateUpdated(working);
    } else if (change.actions.includes('update')) {
      const instance = working.instances.find((candidate) => candidate.address === change.address);
      if (instance !== undefined && change.after !== null) {
        context.print(`${change.address}: Modifying... [id=${instance.attributes.id}]`);
        instance.attributes = { ...instance.attributes, input: change.after.input, output: change.after.input };
        instance.dependencies = change.dependencies;
        instance.sensitive = change.afterSensitive;
        scope.resources.set(change.address, attributeValues(instance.attributes, instance.sensitive));
        context.print(`${change.address}: Modifications complete after 0s [id=${instance.attributes.id}]`);
        result.changed++;
        await context.stateUpdated(working);
      }
    }
    pending.delete(change.address);
    evaluateReady();
  }
  if (context.halt.aborted && !context.cancel.aborted) {
    const halted = new Diagnostic('execution halted', '');
    result.failures.unshift(...(killedByStop ? [halted, halted] : [halted]));
  }
  working.instances.sort((a, b) => compare(a.address, b.address));
  return result;
}

function setOutput(working: Snapshot, output: OutputBlock, scope: Scope): void {
  let value;
  try {
    value = evaluate(output.value, scope);
  } catch {
    return;
  }
  if (value === unknown) return;
  working.outputs[output.name] = { value: value.value, type: value.type, ...(output.sensitive ? { sensitive: true as const } : {}) };
}

/** Pure destroys, each before what it depends on goes (the reverse of creation order). */
function destroysFirst(changes: ResourceChange[]): ResourceChange[] {
  const left = changes.filter((change) => change.actions.length === 1 && change.actions[0] === 'delete');
  const done: ResourceChange[] = [];
  while (left.length > 0) {
    const index = left.findIndex((change) => !left.some((other) => other !== change && other.dependencies.includes(change.address)));
    // A cycle in recorded dependencies cannot be ordered: take them as they come.
    const [next] = left.splice(Math.max(index, 0), 1);
    if (next !== undefined) done.push(next);
  }
  return done;
}

/** Creations, replacements and updates, each after the resources it depends on. */
function createsInOrder(plan: Plan): ResourceChange[] {
  const changes = plan.resources.filter((change) => change.actions.includes('create') || change.actions.includes('update'));
  const order = ordered(plan.configuration.resources).map((resource) => resource.address);
  return changes.sort((a, b) => order.indexOf(a.address) - order.indexOf(b.address));
}

interface Creation {
  instance: Instance;
  failure: Diagnostic | undefined;
  killedByStop: boolean;
}

async function create(change: ResourceChange, context: ApplyContext): Promise<Creation> {
  const started = Date.now();
  context.print(`${change.address}: Creating...`);
  const still = setInterval(() => context.print(`${change.address}: Still creating... [${elapsed(started)} elapsed]`), 10_000);
  const input = change.after?.input ?? null;
  const attributes: DataAttributes = {
    id: terraformUuid(),
    input,
    output: input,
    triggers_replace: change.after?.triggers_replace ?? null,
  };
  let failure: Diagnostic | undefined;
  let killedByStop = false;
  try {
    for (const command of change.commands) {
      const ran = await runLocalExec(change.address, command, context);
      failure = ran.failure;
      killedByStop = ran.killedByStop;
      if (failure !== undefined) break;
    }
  } finally {
    clearInterval(still);
  }
  const instance: Instance = {
    address: change.address,
    name: change.name,
    attributes,
    tainted: failure !== undefined,
    dependencies: change.dependencies,
    sensitive: change.afterSensitive,
  };
  if (failure === undefined) context.print(`${change.address}: Creation complete after ${elapsed(started)} [id=${attributes.id}]`);
  return { instance, failure, killedByStop };
}

/** Go's rendering of a duration cut to whole seconds: 0s, 12s, 1m5s. */
function elapsed(since: number): string {
  const seconds = Math.floor((Date.now() - since) / 1000);
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes}m${seconds % 60}s` : `${seconds}s`;
}

/**
 * Terraform's local-exec: one pipe for stdout and stderr, each line prefixed; killed outright when
 * Terraform is asked to stop (the provisioner's own Stop), whatever the command does with signals.
 */
function runLocalExec(address: string, command: string, context: ApplyContext): Promise<{ failure?: Diagnostic; killedByStop: boolean }> {
  const prefix = `${address} (local-exec): `;
  context.print(`${address}: Provisioning with 'local-exec'...`);
  context.print(`${prefix}Executing: ["/bin/sh" "-c" ${JSON.stringify(command)}]`);
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd: context.directory, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let killedByStop = false;
    const kill = () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killedByStop = true;
      child.kill('SIGKILL');
    };
    context.stop.addEventListener('abort', kill, { once: true });
    context.cancel.addEventListener('abort', kill, { once: true });
    const done = () => {
      context.stop.removeEventListener('abort', kill);
      context.cancel.removeEventListener('abort', kill);
    };
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
      done();
      resolve({
        failure: new Diagnostic(
          'local-exec provisioner error',
          `Error running command '${command}': ${error.message}. Output: ${output}`,
          true,
        ),
        killedByStop,
      });
    });
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      done();
      if (pending !== '') context.print(`${prefix}${pending}`);
      pending = '';
      if (code === 0) {
        resolve({ killedByStop });
        return;
      }
      const how = signal === null ? `exit status ${code ?? 1}` : `signal: ${signalName(signal)}`;
      resolve({
        failure: new Diagnostic('local-exec provisioner error', `Error running command '${command}': ${how}. Output: ${output}`, true),
        killedByStop: killedByStop && signal === 'SIGKILL',
      });
    };
    child.on('exit', (code, signal) => {
      // Killed on a stop, the shell is done with, whatever it started and left holding its output.
      if (!killedByStop) return;
      child.stdout.destroy();
      child.stderr.destroy();
      finish(code, signal);
    });
    child.on('close', (code, signal) => {
      if (!killedByStop) finish(code, signal);
    });
  });
}

/** Go's names for the signals a provisioner most often dies of. */
function signalName(signal: NodeJS.Signals): string {
  const names: Partial<Record<NodeJS.Signals, string>> = { SIGKILL: 'killed', SIGINT: 'interrupt', SIGTERM: 'terminated' };
  return names[signal] ?? signal;
}

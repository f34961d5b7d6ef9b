/**
 * Planning: what each resource and output needs to match the configuration (or to be destroyed),
 * and the plan file that carries it to apply. The file is the stand-in's own JSON; like
 * Terraform's, it holds the prior state's serial and lineage so that apply can refuse a stale plan.
 */
import fs from 'node:fs';
import type { BackendBlock, Configuration, OutputBlock } from './configuration.ts';
import { Refusal } from './refusal.ts';
import { instancesOf, type NullResourceAttributes, type StateV4 } from './state.ts';
import { Diagnostic, evaluate, unknown, type Scope, type Typed } from './values.ts';

export type Action = 'create' | 'delete' | 'no-op';

export interface ResourceChange {
  address: string;
  name: string;
  /** Terraform's JSON plan actions: ["create"], ["delete"], ["delete","create"] (a replacement) or ["no-op"]. */
  actions: Action[];
  before: NullResourceAttributes | null;
  /** The planned attributes; the id is unknown until apply creates the resource. */
  after: { triggers: Record<string, string> | null } | null;
  commands: string[];
  dependsOn: string[];
}

export interface OutputChange {
  name: string;
  actions: ['create'] | ['update'] | ['delete'] | ['no-op'];
  before: unknown;
  /** undefined when the value is known only after apply. */
  after: unknown;
  sensitive: boolean;
}

export interface Plan {
  format: 'terraform-stand-in-plan';
  destroy: boolean;
  /** The state the plan was made from; apply refuses the plan when the stored state moved on. */
  prior: StateV4 | null;
  backend: BackendBlock;
  variables: Record<string, Typed>;
  resources: ResourceChange[];
  outputs: OutputBlock[];
  outputChanges: OutputChange[];
}

export interface PlanOptions {
  destroy: boolean;
  /** Resource addresses given with -target; empty plans every resource. */
  targets: string[];
}

export function makePlan(
  configuration: Configuration,
  variables: Map<string, Typed>,
  prior: StateV4 | undefined,
  options: PlanOptions,
): Plan {
  for (const target of options.targets) {
    if (!/^null_resource\.[A-Za-z_][\w-]*$/.test(target)) throw new Refusal(`the -target address "${target}" (only null_resource.NAME)`);
  }
  const targeted = (address: string) => options.targets.length === 0 || options.targets.includes(address);
  const existing = instancesOf(prior);
  const scope: Scope = { variables, ids: new Map(existing.map((instance) => [instance.address, instance.attributes.id])) };
  const resources: ResourceChange[] = [];
  for (const instance of existing) {
    const configured = configuration.resources.find((resource) => resource.address === instance.address);
    if ((options.destroy || configured === undefined) && targeted(instance.address)) {
      resources.push({
        address: instance.address,
        name: instance.name,
        actions: ['delete'],
        before: instance.attributes,
        after: null,
        commands: [],
        dependsOn: [],
      });
    }
  }
  if (!options.destroy) {
    for (const resource of configuration.resources) {
      if (!targeted(resource.address)) continue;
      const triggers = resource.triggers === undefined ? null : evaluateTriggers(resource.triggers, scope, resource.address);
      const current = existing.find((instance) => instance.address === resource.address);
      const replace =
        current !== undefined && (current.tainted || JSON.stringify(current.attributes.triggers) !== JSON.stringify(triggers));
      const actions: Action[] = current === undefined ? ['create'] : replace ? ['delete', 'create'] : ['no-op'];
      const commands = resource.commands.map((command) => evaluateCommand(command, scope, resource.address));
      resources.push({
        address: resource.address,
        name: resource.name,
        actions,
        before: current?.attributes ?? null,
        after: { triggers },
        commands,
        dependsOn: resource.dependsOn,
      });
      if (actions.includes('create')) scope.ids.set(resource.address, unknown);
    }
  }
  return {
    format: 'terraform-stand-in-plan',
    destroy: options.destroy,
    prior: prior ?? null,
    backend: configuration.backend ?? {},
    variables: Object.fromEntries(variables),
    resources,
    outputs: configuration.outputs,
    outputChanges: planOutputs(configuration.outputs, scope, prior, options.destroy),
  };
}

function evaluateTriggers(expression: Record<string, unknown>, scope: Scope, address: string): Record<string, string> {
  const triggers: Record<string, string> = {};
  for (const [key, item] of Object.entries(expression)) {
    const value = evaluate(item, scope);
    if (value === unknown) throw new Refusal(`a trigger of ${address} known only after apply`);
    if (typeof value.value !== 'string' && typeof value.value !== 'number' && typeof value.value !== 'boolean') {
      throw new Diagnostic(
        'Incorrect attribute value type',
        `Inappropriate value for attribute "triggers" of ${address}: element "${key}": string required.`,
      );
    }
    triggers[key] = String(value.value);
  }
  return triggers;
}

function evaluateCommand(expression: string, scope: Scope, address: string): string {
  const value = evaluate(expression, scope);
  if (value === unknown) throw new Refusal(`a local-exec command of ${address} known only after apply`);
  if (typeof value.value !== 'string')
    throw new Diagnostic('Incorrect attribute value type', `The local-exec command of ${address} must be a string.`);
  return value.value;
}

function planOutputs(outputs: OutputBlock[], scope: Scope, prior: StateV4 | undefined, destroy: boolean): OutputChange[] {
  const before = prior?.outputs ?? {};
  const changes: OutputChange[] = [];
  for (const output of outputs) {
    const had = before[output.name];
    if (destroy) {
      if (had !== undefined)
        changes.push({ name: output.name, actions: ['delete'], before: had.value, after: null, sensitive: output.sensitive });
      continue;
    }
    const value = evaluate(output.value, scope);
    const after = value === unknown ? undefined : value.value;
    const same =
      had !== undefined &&
      after !== undefined &&
      JSON.stringify(had.value) === JSON.stringify(after) &&
      (had.sensitive ?? false) === output.sensitive;
    const actions = had === undefined ? (['create'] as const) : same ? (['no-op'] as const) : (['update'] as const);
    changes.push({
      name: output.name,
      actions: [...actions] as OutputChange['actions'],
      before: had?.value ?? null,
      after,
      sensitive: output.sensitive,
    });
  }
  for (const [name, had] of Object.entries(before)) {
    if (!outputs.some((output) => output.name === name))
      changes.push({ name, actions: ['delete'], before: had.value, after: null, sensitive: had.sensitive ?? false });
  }
  return changes;
}

/** -detailed-exitcode's question: would apply change anything, outputs included (as Terraform counts them). */
export function hasChanges(plan: Plan): boolean {
  return (
    plan.resources.some((change) => !change.actions.includes('no-op')) || plan.outputChanges.some((change) => change.actions[0] !== 'no-op')
  );
}

export function writePlanFile(file: string, plan: Plan): void {
  fs.writeFileSync(file, JSON.stringify(plan));
}

export function readPlanFile(file: string): Plan {
  let plan: { format?: unknown };
  try {
    plan = JSON.parse(fs.readFileSync(file, 'utf8')) as { format?: unknown };
  } catch (error) {
    throw new Diagnostic('Failed to load plan file', `Couldn't read plan file ${file}: ${String(error)}`);
  }
  if (plan.format !== 'terraform-stand-in-plan')
    throw new Diagnostic('Failed to load plan file', `${file} is not a plan file of this stand-in`);
  return plan as Plan;
}

/** Terraform's stale-plan check: both snapshots have a lineage, and serial or lineage differ. */
export function refuseStalePlan(plan: Plan, current: StateV4 | undefined): void {
  if (plan.prior === null || current === undefined) return;
  if (plan.prior.serial !== current.serial || plan.prior.lineage !== current.lineage) {
    throw new Diagnostic(
      'Saved plan is stale',
      'The given plan file can no longer be applied because the state was changed by another operation after the plan was created.',
    );
  }
}

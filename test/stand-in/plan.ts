/**
 * Planning as Terraform 1.11 plans `terraform_data`: created when missing; replaced when tainted,
 * when `triggers_replace` changed (value or type) or on `-replace`; updated in place when `input`
 * changed, its `output` then known after apply; destroyed when gone from the configuration or in a
 * destroy plan. `-target` takes what the targets depend on too (in a destroy plan, what depends on
 * them). The plan file is the stand-in's own JSON; like Terraform's, it holds the prior state's
 * serial and lineage so that apply can refuse a stale plan, and the configuration it was made from.
 */
import fs from 'node:fs';
import type { BackendBlock, Configuration, ResourceBlock } from './configuration.ts';
import { Refusal } from './refusal.ts';
import { compare, snapshotOf, type DataAttributes, type DynamicValue, type Instance, type StateV4 } from './state.ts';
import { Diagnostic } from './diagnostics.ts';
import { evaluate, resourcesOf, unknown, type AttributeValues, type CtyType, type Scope, type Typed } from './values.ts';

export type Action = 'create' | 'update' | 'delete' | 'no-op';

/** An attribute known only after apply, with the type it will have. */
export interface UnknownValue {
  unknown: true;
  type: CtyType;
}

export interface PlannedAttributes {
  id: string | UnknownValue;
  input: DynamicValue | null;
  output: DynamicValue | null | UnknownValue;
  triggers_replace: DynamicValue | null;
}

export type ReplaceReason = 'replace_because_tainted' | 'replace_because_cannot_update' | 'replace_by_request';

export interface ResourceChange {
  address: string;
  name: string;
  /** Terraform's JSON plan actions: ["create"], ["update"], ["delete"], ["delete","create"] (a replacement) or ["no-op"]. */
  actions: Action[];
  reason?: ReplaceReason;
  /** Why the resource goes, when it is no longer configured. */
  removed?: true;
  before: DataAttributes | null;
  after: PlannedAttributes | null;
  /** The attributes marked sensitive before and after (an input made of a sensitive variable). */
  beforeSensitive: string[];
  afterSensitive: string[];
  /** Its local-exec commands, run when it is created. */
  commands: string[];
  /** What it depends on (depends_on and references), as the state records it. */
  dependencies: string[];
}

export interface OutputChange {
  name: string;
  actions: ['create'] | ['update'] | ['delete'] | ['no-op'];
  before: unknown;
  /** undefined when the value is known only after apply. */
  after: unknown;
  /** The type of a known `after`. */
  afterType?: CtyType;
  sensitive: boolean;
}

export interface Plan {
  format: 'terraform-stand-in-plan';
  destroy: boolean;
  /** The state the plan was made from; apply refuses the plan when the stored state moved on. */
  prior: StateV4 | null;
  backend: BackendBlock;
  configuration: Configuration;
  variables: Record<string, Typed>;
  targets: string[];
  resources: ResourceChange[];
  outputChanges: OutputChange[];
  /** When the plan was made, to the second, as `show -json` gives it. */
  timestamp: string;
}

export interface PlanOptions {
  destroy: boolean;
  /** Resource addresses given with -target; empty plans every resource. */
  targets: string[];
  /** Resource addresses given with -replace. */
  replaces: string[];
}

const addressPattern = /^terraform_data\.[A-Za-z_][\w-]*$/;

/** A resource's dependencies in its configuration: depends_on and the resources its arguments refer to. */
export function dependenciesOf(resource: ResourceBlock): string[] {
  const found = new Set([...resource.dependsOn, ...[resource.input, resource.triggersReplace, ...resource.commands].flatMap(resourcesOf)]);
  return [...found].sort(compare);
}

export function makePlan(
  configuration: Configuration,
  variables: Map<string, Typed>,
  prior: StateV4 | undefined,
  options: PlanOptions,
): Plan {
  for (const address of [...options.targets, ...options.replaces]) {
    if (!addressPattern.test(address)) throw new Refusal(`the address "${address}" (only terraform_data.NAME)`);
  }
  const existing = snapshotOf(prior).instances;
  const targeted = targetedAddresses(configuration, existing, options);
  const scope: Scope = { variables, resources: new Map() };
  for (const instance of existing) scope.resources.set(instance.address, attributeValues(instance.attributes, instance.sensitive));
  const resources: ResourceChange[] = [];
  for (const instance of existing) {
    const configured = configuration.resources.some((resource) => resource.address === instance.address);
    if ((options.destroy || !configured) && targeted(instance.address)) {
      resources.push({
        address: instance.address,
        name: instance.name,
        actions: ['delete'],
        ...(configured ? {} : { removed: true as const }),
        before: instance.attributes,
        after: null,
        beforeSensitive: instance.sensitive,
        afterSensitive: [],
        commands: [],
        dependencies: instance.dependencies,
      });
    }
  }
  if (!options.destroy) {
    for (const resource of ordered(configuration.resources)) {
      if (!targeted(resource.address)) continue;
      const change = planResource(resource, scope, existing, options.replaces.includes(resource.address));
      resources.push(change);
      scope.resources.set(resource.address, attributeValues(change.after, change.afterSensitive));
    }
  }
  resources.sort((a, b) => compare(a.address, b.address));
  return {
    format: 'terraform-stand-in-plan',
    destroy: options.destroy,
    prior: prior ?? null,
    backend: configuration.backend ?? {},
    configuration,
    variables: Object.fromEntries(variables),
    targets: options.targets,
    resources,
    outputChanges: planOutputs(configuration, scope, prior, options, targeted),
    timestamp: `${new Date().toISOString().slice(0, 19)}Z`,
  };
}

function planResource(resource: ResourceBlock, scope: Scope, existing: Instance[], replaceRequested: boolean): ResourceChange {
  const [input, inputSensitive] = argument(resource.input, scope, resource.address, 'input');
  const [triggers, triggersSensitive] = argument(resource.triggersReplace, scope, resource.address, 'triggers_replace');
  const current = existing.find((instance) => instance.address === resource.address);
  const commands = resource.commands.map((command) => evaluateCommand(command, scope, resource.address));
  const dependencies = dependenciesOf(resource);
  const afterSensitive = [...(inputSensitive ? ['input'] : []), ...(triggersSensitive ? ['triggers_replace'] : [])];
  const base = {
    address: resource.address,
    name: resource.name,
    commands,
    dependencies,
    beforeSensitive: current?.sensitive ?? [],
    afterSensitive,
  };
  const fresh: PlannedAttributes = {
    id: { unknown: true, type: 'string' },
    input,
    // The output takes the input's type, even when the input is null.
    output: input === null ? null : { unknown: true, type: input.type },
    triggers_replace: triggers,
  };
  if (current === undefined) return { ...base, actions: ['create'], before: null, after: fresh };
  const before = current.attributes;
  const reason: ReplaceReason | undefined = current.tainted
    ? 'replace_because_tainted'
    : replaceRequested
      ? 'replace_by_request'
      : same(before.triggers_replace, triggers)
        ? undefined
        : 'replace_because_cannot_update';
  if (reason !== undefined) return { ...base, actions: ['delete', 'create'], reason, before, after: fresh };
  if (!same(before.input, input)) {
    return {
      ...base,
      actions: ['update'],
      before,
      after: { id: before.id, input, output: { unknown: true, type: input?.type ?? 'dynamic' }, triggers_replace: triggers },
    };
  }
  return { ...base, actions: ['no-op'], before, after: before };
}

/** Terraform compares these dynamically typed values with their types: "3" is not 3. */
function same(a: DynamicValue | null, b: DynamicValue | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** An argument's value, and whether it is marked sensitive. */
function argument(expression: unknown, scope: Scope, address: string, name: string): [DynamicValue | null, boolean] {
  if (expression === undefined) return [null, false];
  const value = evaluate(expression, scope);
  if (value === unknown) throw new Refusal(`an argument known only after apply (${name} of ${address})`);
  return [value.value === null ? null : { value: value.value, type: value.type }, value.sensitive === true];
}

function evaluateCommand(expression: string, scope: Scope, address: string): string {
  const value = evaluate(expression, scope);
  if (value === unknown) throw new Refusal(`a local-exec command of ${address} known only after apply`);
  if (typeof value.value !== 'string')
    throw new Diagnostic('Incorrect attribute value type', `The local-exec command of ${address} must be a string.`);
  // Terraform then hides the command's output; the stand-in does not model that.
  if (value.sensitive === true) throw new Refusal(`a sensitive value in a local-exec command of ${address}`);
  return value.value;
}

/**
 * The attributes a reference reads: `input`, `output` and `triggers_replace` as the values they
 * hold, those named in `sensitive` marked so (Terraform leaves the output unmarked: it is the
 * provider's copy of the input).
 */
export function attributeValues(attributes: DataAttributes | PlannedAttributes | null, sensitive: string[]): AttributeValues {
  if (attributes === null) return {};
  const read = (name: string, value: DynamicValue | UnknownValue | null): Typed | typeof unknown => {
    if (value !== null && 'unknown' in value) return unknown;
    const typed: Typed = value === null ? { value: null, type: 'dynamic' } : { value: value.value, type: value.type };
    return sensitive.includes(name) ? { ...typed, sensitive: true } : typed;
  };
  return {
    id: typeof attributes.id === 'string' ? { value: attributes.id, type: 'string' } : unknown,
    input: read('input', attributes.input),
    output: read('output', attributes.output),
    triggers_replace: read('triggers_replace', attributes.triggers_replace),
  };
}

/** Resources after those they depend on, in the configuration's order otherwise; a cycle fails. */
export function ordered(resources: ResourceBlock[]): ResourceBlock[] {
  const done: ResourceBlock[] = [];
  const visit = (resource: ResourceBlock, path: string[]) => {
    if (done.includes(resource)) return;
    if (path.includes(resource.address)) throw new Diagnostic('Cycle', `Cycle: ${[...path, resource.address].join(', ')}`);
    for (const target of dependenciesOf(resource)) {
      const dependency = resources.find((other) => other.address === target);
      if (dependency !== undefined) visit(dependency, [...path, resource.address]);
    }
    done.push(resource);
  };
  for (const resource of resources) visit(resource, []);
  return done;
}

/**
 * Whether an address is in the plan: every one without -target; with it, the targets and what they
 * need (in a destroy plan, what needs them). Terraform refreshes the targets and what they need.
 */
export function targetedAddresses(
  configuration: Configuration,
  existing: Instance[],
  options: Pick<PlanOptions, 'targets' | 'destroy'>,
): (address: string) => boolean {
  if (options.targets.length === 0) return () => true;
  const edges = new Map<string, string[]>();
  for (const resource of configuration.resources) edges.set(resource.address, dependenciesOf(resource));
  for (const instance of existing) if (!edges.has(instance.address)) edges.set(instance.address, instance.dependencies);
  const next = (address: string): string[] =>
    options.destroy
      ? [...edges].filter(([, dependencies]) => dependencies.includes(address)).map(([dependent]) => dependent)
      : (edges.get(address) ?? []);
  const chosen = new Set<string>();
  const take = (address: string) => {
    if (chosen.has(address)) return;
    chosen.add(address);
    next(address).forEach(take);
  };
  options.targets.forEach(take);
  return (address) => chosen.has(address);
}

function planOutputs(
  configuration: Configuration,
  scope: Scope,
  prior: StateV4 | undefined,
  options: PlanOptions,
  targeted: (address: string) => boolean,
): OutputChange[] {
  const before = prior?.outputs ?? {};
  const changes: OutputChange[] = [];
  for (const output of configuration.outputs) {
    const had = before[output.name];
    if (options.destroy) {
      // A targeted destroy leaves the outputs as they are.
      if (had !== undefined && options.targets.length === 0)
        changes.push({ name: output.name, actions: ['delete'], before: had.value, after: null, sensitive: output.sensitive });
      continue;
    }
    // With -target, only the outputs that refer to a targeted resource are planned.
    if (options.targets.length > 0 && !resourcesOf(output.value).some(targeted)) continue;
    const value = evaluate(output.value, scope);
    if (value !== unknown && value.sensitive === true && !output.sensitive) throw outputRefersToSensitive();
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
      ...(value === unknown ? {} : { afterType: value.type }),
      sensitive: output.sensitive,
    });
  }
  for (const [name, had] of Object.entries(before)) {
    if (!configuration.outputs.some((output) => output.name === name))
      changes.push({ name, actions: ['delete'], before: had.value, after: null, sensitive: had.sensitive ?? false });
  }
  return changes.sort((a, b) => compare(a.name, b.name));
}

/** Terraform ties it to the output's block, which it shows; the stand-in shows no excerpts. */
function outputRefersToSensitive(): Diagnostic {
  return new Diagnostic(
    'Output refers to sensitive values',
    `To reduce the risk of accidentally exporting sensitive data that was intended to be only internal, Terraform requires that any root module output containing sensitive data be explicitly marked as sensitive, to confirm your intent.\n\nIf you do intend to export this data, annotate the output value as sensitive by adding the following argument:\n    sensitive = true`,
    true,
  );
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

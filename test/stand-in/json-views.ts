/**
 * The machine-readable views as Terraform 1.11 prints them, sensitive values in clear text:
 * `show -json` of the state (format 1.0) and of a saved plan (format 1.2: variables, planned values,
 * resource and output changes, the prior state, the configuration with its expressions' references,
 * the resource attributes those refer to), and `output -json`.
 */
import type { Configuration } from './configuration.ts';
import { hasChanges, type Plan, type PlannedAttributes, type ResourceChange, type UnknownValue } from './plan.ts';
import {
  compare,
  providerName,
  resourceType,
  snapshotOf,
  stateDocument,
  type DataAttributes,
  type DynamicValue,
  type StateV4,
} from './state.ts';
import { referencesOf, sortedEntries, type CtyType } from './values.ts';
import { standInVersion } from './version.ts';

type Json = Record<string, unknown>;

/** `output -json`: every output with its type and value, in clear text as Terraform prints it. */
export function outputsJson(state: StateV4 | undefined): Json {
  return Object.fromEntries(
    Object.entries(state?.outputs ?? {}).map(([name, output]) => [
      name,
      { sensitive: output.sensitive === true, type: output.type, value: output.value },
    ]),
  );
}

/** `show -json` of the state; an empty one (or none) is its format version alone. */
export function stateJson(state: StateV4 | undefined): Json {
  if (state === undefined || (state.resources.length === 0 && Object.keys(state.outputs).length === 0)) return { format_version: '1.0' };
  const outputs = Object.entries(state.outputs).sort(([a], [b]) => compare(a, b));
  const resources = snapshotOf(state)
    .instances.sort((a, b) => compare(a.address, b.address))
    .map((instance) => {
      const values = plainAttributes(instance.attributes);
      return {
        ...resourceHeader(instance.address, instance.name),
        schema_version: 0,
        values,
        sensitive_values: withMarks(shape(values, false), instance.sensitive),
        ...(instance.dependencies.length > 0 ? { depends_on: instance.dependencies } : {}),
        ...(instance.tainted ? { tainted: true } : {}),
      };
    });
  return {
    format_version: '1.0',
    terraform_version: state.terraform_version,
    values: {
      ...(outputs.length === 0
        ? {}
        : {
            outputs: Object.fromEntries(
              outputs.map(([name, output]) => [name, { sensitive: output.sensitive === true, value: output.value, type: output.type }]),
            ),
          }),
      root_module: resources.length === 0 ? {} : { resources },
    },
  };
}

/** `show -json PLANFILE`. */
export function planJson(plan: Plan): Json {
  const changes = plan.resources;
  const outputChanges = plan.outputChanges;
  const relevant = relevantAttributes(plan);
  return {
    format_version: '1.2',
    terraform_version: standInVersion,
    ...(Object.keys(plan.variables).length === 0
      ? {}
      : { variables: sortedEntries(Object.entries(plan.variables).map(([name, typed]) => [name, { value: typed.given ?? typed.value }])) }),
    planned_values: plannedValues(plan),
    ...(changes.length === 0 ? {} : { resource_changes: changes.map(resourceChange) }),
    ...(outputChanges.length === 0
      ? {}
      : {
          output_changes: Object.fromEntries(
            outputChanges.map((change) => [
              change.name,
              {
                actions: change.actions,
                before: change.before,
                // Terraform leaves "after" out, rather than null, for a value known only after apply.
                ...(change.after === undefined ? {} : { after: change.after }),
                after_unknown: change.after === undefined,
                before_sensitive: change.sensitive,
                after_sensitive: change.sensitive,
              },
            ]),
          ),
        }),
    ...priorState(plan),
    configuration: configurationJson(plan.configuration),
    ...(relevant.length === 0 ? {} : { relevant_attributes: relevant }),
    timestamp: plan.timestamp,
    applyable: hasChanges(plan),
    // A targeted plan leaves changes out, and says so.
    complete: plan.targets.length === 0,
    errored: false,
  };
}

function resourceHeader(address: string, name: string) {
  return { address, mode: 'managed', type: resourceType, name, provider_name: providerName };
}

function plainAttributes(attributes: DataAttributes): Json {
  const plain = (value: DynamicValue | null) => (value === null ? null : value.value);
  return {
    id: attributes.id,
    input: plain(attributes.input),
    output: plain(attributes.output),
    triggers_replace: plain(attributes.triggers_replace),
  };
}

const isUnknown = (value: unknown): value is UnknownValue => typeof value === 'object' && value !== null && 'unknown' in value;

/** The planned attributes Terraform knows, the unknown ones left out. */
function knownAttributes(after: PlannedAttributes): Json {
  const known: Json = {};
  for (const [name, value] of Object.entries(after)) {
    if (isUnknown(value)) continue;
    known[name] = value === null || typeof value === 'string' ? value : (value as DynamicValue).value;
  }
  return known;
}

/**
 * A value's shape as Terraform marks parts of it (unknown, sensitive): an object keeps only its
 * marked or nested parts, a list one entry per element, anything else is the mark itself.
 */
function shape(value: unknown, mark: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => shape(item, mark));
  if (typeof value === 'object' && value !== null) {
    const kept: Json = {};
    for (const [key, item] of Object.entries(value)) {
      const part = shape(item, mark);
      if (part !== false) kept[key] = part;
    }
    return kept;
  }
  return mark;
}

/** The sensitivity shape of a value known only after apply: all Terraform can say is whether it is a collection. */
function unknownSensitivity(type: CtyType): unknown {
  if (Array.isArray(type) && ['list', 'set', 'tuple'].includes(type[0])) return [];
  if (Array.isArray(type) && ['map', 'object'].includes(type[0])) return {};
  return false;
}

function afterUnknown(after: PlannedAttributes | null): unknown {
  if (after === null) return {};
  const marks: Json = {};
  for (const [name, value] of Object.entries(after)) {
    const part = isUnknown(value)
      ? true
      : shape(value === null || typeof value === 'string' ? value : (value as DynamicValue).value, false);
    if (part !== false) marks[name] = part;
  }
  return marks;
}

/** A sensitivity shape with the attributes marked sensitive set to `true`. */
function withMarks(marks: unknown, sensitive: string[]): unknown {
  if (sensitive.length === 0) return marks;
  const object = { ...(marks as Json) };
  for (const name of sensitive) object[name] = true;
  return sortedEntries(Object.entries(object));
}

function afterSensitive(after: PlannedAttributes, sensitive: string[]): unknown {
  return withMarks(afterShape(after), sensitive);
}

function afterShape(after: PlannedAttributes): unknown {
  const marks: Json = {};
  for (const [name, value] of Object.entries(after)) {
    const part = isUnknown(value)
      ? unknownSensitivity(value.type)
      : shape(value === null || typeof value === 'string' ? value : (value as DynamicValue).value, false);
    if (part !== false) marks[name] = part;
  }
  return marks;
}

function resourceChange(change: ResourceChange): Json {
  const before = change.before === null ? null : plainAttributes(change.before);
  const reason = change.removed ? 'delete_because_no_resource_config' : change.reason;
  return {
    ...resourceHeader(change.address, change.name),
    change: {
      actions: change.actions,
      before,
      after: change.after === null ? null : knownAttributes(change.after),
      // Terraform says nothing is unknown in a change that changes nothing.
      after_unknown: change.actions[0] === 'no-op' ? {} : afterUnknown(change.after),
      before_sensitive: before === null ? false : withMarks(shape(before, false), change.beforeSensitive),
      after_sensitive: change.after === null ? false : afterSensitive(change.after, change.afterSensitive),
      ...(change.reason === 'replace_because_cannot_update' ? { replace_paths: [['triggers_replace']] } : {}),
    },
    ...(reason === undefined ? {} : { action_reason: reason }),
  };
}

function plannedValues(plan: Plan): Json {
  const outputs = plan.outputChanges.filter((change) => change.actions[0] !== 'delete');
  const resources = plan.resources
    .filter((change) => change.after !== null)
    .map((change) => ({
      ...resourceHeader(change.address, change.name),
      schema_version: 0,
      values: knownAttributes(change.after as PlannedAttributes),
      sensitive_values: afterSensitive(change.after as PlannedAttributes, change.afterSensitive),
    }));
  return {
    ...(outputs.length === 0
      ? {}
      : {
          outputs: Object.fromEntries(
            outputs.map((change) => [
              change.name,
              change.after === undefined
                ? { sensitive: change.sensitive }
                : { sensitive: change.sensitive, type: change.afterType, value: change.after },
            ]),
          ),
        }),
    root_module: resources.length === 0 ? {} : { resources },
  };
}

/** An expression as the plan's configuration shows it: a constant's value, or what it refers to. */
function expressionJson(expression: unknown): Json {
  const references = referencesOf(expression);
  return references.length === 0 ? { constant_value: expression } : { references };
}

function configurationJson(configuration: Configuration): Json {
  const outputs = [...configuration.outputs].sort((a, b) => compare(a.name, b.name));
  const resources = [...configuration.resources].sort((a, b) => compare(a.address, b.address));
  const variables = [...configuration.variables].sort((a, b) => compare(a.name, b.name));
  const root: Json = {};
  if (outputs.length > 0)
    root.outputs = Object.fromEntries(
      outputs.map((output) => [
        output.name,
        {
          ...(output.sensitive ? { sensitive: true } : {}),
          expression: expressionJson(output.value),
          ...(output.description === undefined ? {} : { description: output.description }),
        },
      ]),
    );
  if (resources.length > 0)
    root.resources = resources.map((resource) => {
      const expressions: Json = {};
      if (resource.input !== undefined) expressions.input = expressionJson(resource.input);
      if (resource.triggersReplace !== undefined) expressions.triggers_replace = expressionJson(resource.triggersReplace);
      return {
        address: resource.address,
        mode: 'managed',
        type: resourceType,
        name: resource.name,
        provider_config_key: 'terraform',
        ...(resource.commands.length === 0
          ? {}
          : {
              provisioners: resource.commands.map((command) => ({
                type: 'local-exec',
                expressions: { command: expressionJson(command) },
              })),
            }),
        ...(Object.keys(expressions).length === 0 ? {} : { expressions }),
        schema_version: 0,
        ...(resource.dependsOn.length === 0 ? {} : { depends_on: resource.dependsOn }),
      };
    });
  if (variables.length > 0)
    root.variables = Object.fromEntries(
      variables.map((variable) => [
        variable.name,
        {
          ...(variable.hasDefault ? { default: variable.default } : {}),
          ...(variable.description === undefined ? {} : { description: variable.description }),
          ...(variable.sensitive ? { sensitive: true } : {}),
        },
      ]),
    );
  return {
    ...(resources.length === 0 ? {} : { provider_config: { terraform: { name: 'terraform', full_name: providerName } } }),
    root_module: root,
  };
}

/**
 * The resource attributes the plan's changes depend on: those the changing resources and outputs
 * refer to, and, through each resource so referred to, those its own arguments refer to.
 */
function relevantAttributes(plan: Plan): { resource: string; attribute: string[] }[] {
  const { configuration } = plan;
  const expressionsOf = (address: string) => {
    const resource = configuration.resources.find((candidate) => candidate.address === address);
    return resource === undefined ? [] : [resource.input, resource.triggersReplace, ...resource.commands];
  };
  const found = new Set<string>();
  const visited = new Set<string>();
  const follow = (expressions: unknown[]) => {
    for (const reference of expressions.flatMap(referencesOf)) {
      if (!/^terraform_data\.[^.]+\.[^.]+$/.test(reference)) continue;
      found.add(reference);
      const address = reference.slice(0, reference.lastIndexOf('.'));
      if (visited.has(address)) continue;
      visited.add(address);
      follow(expressionsOf(address));
    }
  };
  for (const change of plan.resources) if (change.actions[0] !== 'no-op') follow(expressionsOf(change.address));
  for (const change of plan.outputChanges) {
    if (change.actions[0] === 'no-op') continue;
    follow(configuration.outputs.filter((output) => output.name === change.name).map((output) => output.value));
  }
  return [...found].sort(compare).map((reference) => {
    const last = reference.lastIndexOf('.');
    return { resource: reference.slice(0, last), attribute: [reference.slice(last + 1)] };
  });
}

/**
 * The state the plan was made from, as the plan shows it: its outputs overlaid with the planned
 * values of the outputs known at plan time, as Terraform records them during planning. Left out
 * when there is nothing in it.
 */
function priorState(plan: Plan): Json {
  const outputs = { ...(plan.prior?.outputs ?? {}) };
  if (!plan.destroy) {
    for (const change of plan.outputChanges) {
      if (change.after === undefined || change.actions[0] === 'delete' || change.afterType === undefined) continue;
      outputs[change.name] = { value: change.after, type: change.afterType, ...(change.sensitive ? { sensitive: true as const } : {}) };
    }
  }
  const prior = plan.prior ?? stateDocument(undefined, '', 0);
  if (prior.resources.length === 0 && Object.keys(outputs).length === 0) return {};
  return { prior_state: stateJson({ ...prior, outputs }) };
}

/**
 * What the stand-in prints for people: Terraform 1.11's plan rendering (symbols, one block per
 * changing resource with its attributes, unchanged ones hidden and counted, the totals, the
 * outputs' changes), its apply and destroy summaries and its diagnostics. Close to Terraform's, not
 * byte for byte (no word wrapping, no source excerpts): Stratum reads exit codes, not this text.
 */
import type { OutputChange, Plan, PlannedAttributes, ResourceChange, UnknownValue } from './plan.ts';
import { compare, type DataAttributes, type Instance, type Snapshot } from './state.ts';
import { typeOf, type CtyType } from './values.ts';

const isUnknown = (value: unknown): value is UnknownValue => typeof value === 'object' && value !== null && 'unknown' in value;

/** The value of an attribute with its type, or unknown, or null. */
type Attribute = { value: unknown; type: CtyType } | UnknownValue | null;

function attributesOf(attributes: DataAttributes | PlannedAttributes | null): Record<string, Attribute> {
  if (attributes === null) return {};
  const id = attributes.id;
  return {
    id: typeof id === 'string' ? { value: id, type: 'string' } : id,
    input: attributes.input,
    output: attributes.output,
    triggers_replace: attributes.triggers_replace,
  };
}

/** What planning prints as it reads each resource again: those a resource depends on first. */
export function refreshLines(instances: Instance[]): string[] {
  const done: Instance[] = [];
  const visit = (instance: Instance, path: Instance[]) => {
    if (done.includes(instance) || path.includes(instance)) return;
    for (const address of instance.dependencies) {
      const dependency = instances.find((candidate) => candidate.address === address);
      if (dependency !== undefined) visit(dependency, [...path, instance]);
    }
    done.push(instance);
  };
  for (const instance of instances) visit(instance, []);
  return done.map((instance) => `${instance.address}: Refreshing state... [id=${instance.attributes.id}]`);
}

const symbols: [string, string, (change: ResourceChange) => boolean][] = [
  ['  + create', 'create', (change) => change.actions.length === 1 && change.actions[0] === 'create'],
  ['  ~ update in-place', 'update', (change) => change.actions[0] === 'update'],
  ['  - destroy', 'delete', (change) => change.actions.length === 1 && change.actions[0] === 'delete'],
  ['-/+ destroy and then create replacement', 'replace', (change) => change.actions.length === 2],
];

export function planLines(plan: Plan): string[] {
  const changing = plan.resources.filter((change) => change.actions[0] !== 'no-op');
  const outputs = plan.outputChanges.filter((change) => change.actions[0] !== 'no-op');
  const lines: string[] = [];
  if (changing.length === 0 && outputs.length === 0) {
    lines.push(
      ...(plan.destroy
        ? [
            '',
            'No changes. No objects need to be destroyed.',
            '',
            'Either you have not created any objects yet or the existing objects were',
            'already deleted outside of Terraform.',
          ]
        : [
            '',
            'No changes. Your infrastructure matches the configuration.',
            '',
            'Terraform has compared your real infrastructure against your configuration',
            'and found no differences, so no changes are needed.',
          ]),
    );
  } else if (changing.length === 0) {
    lines.push(
      '',
      'Changes to Outputs:',
      ...outputLines(outputs, plan.outputChanges),
      '',
      'You can apply this plan to save these new output values to the Terraform',
      'state, without changing any real infrastructure.',
    );
  } else {
    lines.push(
      '',
      'Terraform used the selected providers to generate the following execution',
      'plan. Resource actions are indicated with the following symbols:',
    );
    for (const [line, , applies] of symbols) if (changing.some(applies)) lines.push(line);
    lines.push('', 'Terraform will perform the following actions:', '');
    for (const change of changing) lines.push(...resourceLines(change), '');
    const add = changing.filter((change) => change.actions.includes('create')).length;
    const update = changing.filter((change) => change.actions[0] === 'update').length;
    const destroy = changing.filter((change) => change.actions.includes('delete')).length;
    lines.push(`Plan: ${add} to add, ${update} to change, ${destroy} to destroy.`);
    if (outputs.length > 0) lines.push('', 'Changes to Outputs:', ...outputLines(outputs, plan.outputChanges));
  }
  if (plan.targets.length > 0)
    lines.push(
      '',
      'Warning: Resource targeting is in effect',
      '',
      'You are creating a plan with the -target option, which means that the result',
      'of this plan may not represent all of the changes requested by the current',
      'configuration.',
      '',
      'The -target option is not for routine use, and is provided only for',
      'exceptional situations such as recovering from errors or mistakes, or when',
      'Terraform specifically suggests to use it as part of an error message.',
    );
  return lines;
}

function resourceLines(change: ResourceChange): string[] {
  const replace = change.actions.length === 2;
  const kind = replace ? 'replace' : change.actions[0];
  const header = {
    create: 'will be created',
    update: 'will be updated in-place',
    delete: 'will be destroyed',
    replace:
      change.reason === 'replace_because_tainted'
        ? 'is tainted, so must be replaced'
        : change.reason === 'replace_by_request'
          ? 'will be replaced, as requested'
          : 'must be replaced',
  }[kind as string];
  const symbol = { create: '  +', update: '  ~', delete: '  -', replace: '-/+' }[kind as string] ?? '   ';
  const lines = [`  # ${change.address} ${header ?? ''}`];
  if (change.removed) lines.push(`  # (because ${change.address} is not in configuration)`);
  lines.push(`${symbol} resource "terraform_data" "${change.name}" {`);
  const before = attributesOf(change.before);
  const after = attributesOf(change.after);
  const names = Object.keys({ ...before, ...after }).filter((name) => (before[name] ?? null) !== null || (after[name] ?? null) !== null);
  const width = Math.max(...names.map((name) => name.length));
  let hidden = 0;
  for (const name of names) {
    const was = change.before === null ? null : (before[name] ?? null);
    const will = change.after === null ? null : (after[name] ?? null);
    const sensitive = change.beforeSensitive.includes(name) || change.afterSensitive.includes(name);
    const rendered = sensitive
      ? sensitiveLines(name.padEnd(width), was, will)
      : attributeLines(name.padEnd(width), was, will, name === 'id' && kind === 'update', 6);
    if (rendered === undefined) hidden++;
    else lines.push(...rendered);
  }
  if (hidden > 0) lines.push(`        # (${hidden} unchanged attribute${hidden === 1 ? '' : 's'} hidden)`);
  lines.push('    }');
  return lines;
}

/** A sensitive attribute's line, its value never shown; undefined when unchanged and hidden. */
function sensitiveLines(name: string, was: Attribute, will: Attribute): string[] | undefined {
  const hidden = '(sensitive value)';
  if (was === null) return will === null ? undefined : [`      + ${name} = ${hidden}`];
  if (will === null) return [`      - ${name} = ${hidden} -> null`];
  return JSON.stringify(was) === JSON.stringify(will) ? undefined : [`      ~ ${name} = ${hidden}`];
}

/** An attribute's lines at `indent`; undefined when unchanged and hidden. */
function attributeLines(name: string, was: Attribute, will: Attribute, shownUnchanged: boolean, indent: number): string[] | undefined {
  const pad = ' '.repeat(indent);
  if (was === null) {
    if (will === null) return undefined;
    return prefixed(`${pad}+ ${name} = `, isUnknown(will) ? '(known after apply)' : render(will, '+', indent));
  }
  if (isUnknown(was)) return undefined;
  if (will === null) return prefixed(`${pad}- ${name} = `, `${render(was, '-', indent)} -> null`);
  if (isUnknown(will)) return prefixed(`${pad}~ ${name} = `, `${render(was, '-', indent)} -> (known after apply)`);
  if (JSON.stringify(was) === JSON.stringify(will))
    return shownUnchanged ? prefixed(`${pad}  ${name} = `, render(will, ' ', indent)) : undefined;
  if (isCollection(was.value) && isCollection(will.value) && Array.isArray(was.value) === Array.isArray(will.value))
    return prefixed(`${pad}~ ${name} = `, nestedDiff(was, will, indent));
  return prefixed(`${pad}~ ${name} = `, `${render(was, ' ', indent)} -> ${render(will, ' ', indent)}`);
}

function prefixed(prefix: string, text: string): string[] {
  return `${prefix}${text}`.split('\n');
}

const isCollection = (value: unknown) => typeof value === 'object' && value !== null;

/** A value as the plan renders it; a collection over several lines, each element marked with `symbol`. */
function render(attribute: { value: unknown; type: CtyType }, symbol: string, indent: number): string {
  const { value, type } = attribute;
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map(
      (item, index) => `${pad}    ${symbol} ${render({ value: item, type: elementType(type, index) }, symbol, indent + 4)},`,
    );
    return `[\n${items.join('\n')}\n${pad}  ]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const keys = entries.map(([key]) => keyText(key));
    const width = Math.max(...keys.map((key) => key.length));
    const items = entries.map(
      ([key, item], index) =>
        `${pad}    ${symbol} ${(keys[index] ?? key).padEnd(width)} = ${render({ value: item, type: elementType(type, key) }, symbol, indent + 4)}`,
    );
    return `{\n${items.join('\n')}\n${pad}  }`;
  }
  return scalar(value);
}

/** A collection changed element by element: unchanged elements hidden and counted. */
function nestedDiff(was: { value: unknown; type: CtyType }, will: { value: unknown; type: CtyType }, indent: number): string {
  const pad = ' '.repeat(indent);
  const lines: string[] = [];
  let hidden = 0;
  if (Array.isArray(was.value) && Array.isArray(will.value)) {
    const length = Math.max(was.value.length, will.value.length);
    for (let index = 0; index < length; index++) {
      const old = was.value[index] as unknown;
      const next = will.value[index] as unknown;
      if (index >= will.value.length)
        lines.push(`${pad}    - ${render({ value: old, type: elementType(was.type, index) }, '-', indent + 4)},`);
      else if (index >= was.value.length)
        lines.push(`${pad}    + ${render({ value: next, type: elementType(will.type, index) }, '+', indent + 4)},`);
      else if (JSON.stringify(old) === JSON.stringify(next)) hidden++;
      else lines.push(`${pad}    ~ ${scalar(old)} -> ${scalar(next)},`);
    }
    if (hidden > 0) lines.push(`${pad}    # (${hidden} unchanged element${hidden === 1 ? '' : 's'} hidden)`);
    return `[\n${lines.join('\n')}\n${pad}  ]`;
  }
  const old = was.value as Record<string, unknown>;
  const next = will.value as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])].sort(compare);
  const width = Math.max(...keys.map((key) => keyText(key).length));
  for (const key of keys) {
    const name = keyText(key).padEnd(width);
    if (!(key in next)) lines.push(`${pad}    - ${name} = ${scalar(old[key])}`);
    else if (!(key in old)) lines.push(`${pad}    + ${name} = ${scalar(next[key])}`);
    else if (JSON.stringify(old[key]) === JSON.stringify(next[key])) hidden++;
    else lines.push(`${pad}    ~ ${name} = ${scalar(old[key])} -> ${scalar(next[key])}`);
  }
  if (hidden > 0) lines.push(`${pad}    # (${hidden} unchanged attribute${hidden === 1 ? '' : 's'} hidden)`);
  return `{\n${lines.join('\n')}\n${pad}  }`;
}

function elementType(type: CtyType, key: string | number): CtyType {
  if (!Array.isArray(type)) return 'dynamic';
  const [kind, inner] = type;
  if (kind === 'object' && typeof inner === 'object' && inner !== null && !Array.isArray(inner))
    return (inner as Record<string, CtyType>)[String(key)] ?? 'dynamic';
  if (kind === 'tuple' && Array.isArray(inner)) return (inner[Number(key)] ?? 'dynamic') as CtyType;
  return inner as CtyType;
}

/** Keys are quoted only when they are not identifiers. */
function keyText(key: string): string {
  return /^[A-Za-z_][\w-]*$/.test(key) ? key : JSON.stringify(key);
}

function scalar(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The outputs' changes, names padded to the longest of all the plan's outputs, changing or not. */
function outputLines(changes: OutputChange[], all: OutputChange[]): string[] {
  const width = Math.max(...all.map((change) => change.name.length));
  return changes.flatMap((change) => {
    const prefix = (symbol: string) => `  ${symbol} ${change.name.padEnd(width)} = `;
    const sensitive = '(sensitive value)';
    const before = { value: change.before, type: typeOf(change.before) };
    const after = { value: change.after, type: change.afterType ?? typeOf(change.after) };
    switch (change.actions[0]) {
      case 'create':
        return prefixed(
          prefix('+'),
          change.sensitive ? sensitive : change.after === undefined ? '(known after apply)' : render(after, '+', 2),
        );
      case 'delete':
        return prefixed(prefix('-'), `${change.sensitive ? sensitive : render(before, '-', 2)} -> null`);
      default:
        if (change.sensitive) return prefixed(prefix('~'), sensitive);
        if (change.after === undefined) return prefixed(prefix('~'), `${render(before, '-', 2)} -> (known after apply)`);
        if (isCollection(before.value) && isCollection(after.value) && Array.isArray(before.value) === Array.isArray(after.value))
          return prefixed(prefix('~'), nestedDiff(before, after, 2));
        return prefixed(prefix('~'), `${render(before, '-', 2)} -> ${render(after, '+', 2)}`);
    }
  });
}

export function applySummary(
  destroyCommand: boolean,
  result: { added: number; changed: number; destroyed: number },
  snapshot: Snapshot,
): string[] {
  const lines = [
    '',
    destroyCommand
      ? `Destroy complete! Resources: ${result.destroyed} destroyed.`
      : `Apply complete! Resources: ${result.added} added, ${result.changed} changed, ${result.destroyed} destroyed.`,
  ];
  const names = Object.keys(snapshot.outputs).sort(compare);
  if (names.length > 0) {
    lines.push('', 'Outputs:', '');
    for (const name of names) {
      const output = snapshot.outputs[name];
      if (output !== undefined)
        lines.push(`${name} = ${output.sensitive === true ? '<sensitive>' : outputValue(output.value, output.type, '')}`);
    }
  }
  return lines;
}

/** An output's value as apply prints it: HCL, with the conversion that gives its type back (tomap, tolist). */
function outputValue(value: unknown, type: CtyType, pad: string): string {
  const kind = Array.isArray(type) ? type[0] : type;
  if (Array.isArray(value)) {
    const items = value.map((item, index) => `${pad}  ${outputValue(item, elementType(type, index), `${pad}  `)},`);
    const body = value.length === 0 ? '[]' : `[\n${items.join('\n')}\n${pad}]`;
    return kind === 'list' ? `tolist(${body})` : kind === 'set' ? `toset(${body})` : body;
  }
  if (typeof value === 'object' && value !== null) {
    const items = Object.entries(value).map(
      ([key, item]) => `${pad}  ${JSON.stringify(key)} = ${outputValue(item, elementType(type, key), `${pad}  `)}`,
    );
    const body = items.length === 0 ? '{}' : `{\n${items.join('\n')}\n${pad}}`;
    return kind === 'map' ? `tomap(${body})` : body;
  }
  return scalar(value);
}

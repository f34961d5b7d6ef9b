/**
 * Values as Terraform types them: input variables from their sources (TF_VAR_*, tfvars files,
 * -var and -var-file, in Terraform's order of precedence), type constraints, and the few
 * expressions the stand-in evaluates (literals, `var.NAME`, `null_resource.NAME.id`, "${...}").
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseHcl } from './hcl.ts';
import { ConfigurationError, type VariableBlock } from './configuration.ts';
import { Refusal } from './refusal.ts';

/** A type as the state file writes it: `"string"`, `["map","string"]`, `["object",{...}]`... */
export type CtyType = string | [string, unknown];

export interface Typed {
  value: unknown;
  type: CtyType;
}

/** A value known only after apply: a resource's id before the resource exists. */
export const unknown: unique symbol = Symbol('known after apply');

export interface Scope {
  variables: Map<string, Typed>;
  /** Resource ids by address; `unknown` for a resource the run creates. */
  ids: Map<string, string | typeof unknown>;
}

/** A failure Terraform reports as a diagnostic: a summary and its detail. */
export class Diagnostic extends Error {
  constructor(
    readonly summary: string,
    readonly detail: string,
  ) {
    super(`${summary}: ${detail}`);
  }
}

export interface VariableSources {
  env: NodeJS.ProcessEnv;
  directory: string;
  /** -var 'k=v' and -var-file=F in the order given: later ones win. */
  arguments: { kind: 'var' | 'var-file'; text: string }[];
}

export async function readVariables(declared: VariableBlock[], sources: VariableSources): Promise<Map<string, Typed>> {
  const raw = new Map<string, { text: string } | { value: unknown }>();
  for (const [key, text] of Object.entries(sources.env)) {
    const name = key.startsWith('TF_VAR_') ? key.slice('TF_VAR_'.length) : undefined;
    if (name !== undefined && text !== undefined) raw.set(name, { text });
  }
  const files = fs.readdirSync(sources.directory).sort();
  const automatic = [
    ...files.filter((f) => f === 'terraform.tfvars' || f === 'terraform.tfvars.json'),
    ...files.filter((f) => f.endsWith('.auto.tfvars') || f.endsWith('.auto.tfvars.json')),
  ];
  for (const file of automatic)
    for (const [name, value] of await readVariableFile(path.join(sources.directory, file))) raw.set(name, { value });
  for (const argument of sources.arguments) {
    if (argument.kind === 'var-file') {
      for (const [name, value] of await readVariableFile(path.resolve(sources.directory, argument.text))) raw.set(name, { value });
      continue;
    }
    const separator = argument.text.indexOf('=');
    if (separator <= 0) throw new Diagnostic('Invalid -var option', `The given -var option "${argument.text}" is not correctly specified.`);
    const name = argument.text.slice(0, separator);
    if (!declared.some((variable) => variable.name === name)) {
      throw new Diagnostic(
        'Value for undeclared variable',
        `A variable named "${name}" was assigned on the command line, but the root module does not declare a variable of that name.`,
      );
    }
    raw.set(name, { text: argument.text.slice(separator + 1) });
  }
  const values = new Map<string, Typed>();
  for (const variable of declared) {
    const type = parseTypeConstraint(variable.type);
    const given = raw.get(variable.name);
    if (given === undefined && !variable.hasDefault) {
      throw new Diagnostic(
        'No value for required variable',
        `The root module input variable "${variable.name}" is not set, and has no default value. Use a -var or -var-file command line argument to provide a value for this variable.`,
      );
    }
    const what = `variable "${variable.name}"`;
    const value =
      given === undefined
        ? literal(variable.default, what)
        : 'value' in given
          ? literal(given.value, what)
          : await fromText(given.text, type, what);
    values.set(variable.name, convert(value, type, what));
  }
  return values;
}

async function readVariableFile(file: string): Promise<[string, unknown][]> {
  if (!fs.existsSync(file)) throw new Diagnostic('Failed to read variables file', `Given variables file ${file} does not exist.`);
  const text = fs.readFileSync(file, 'utf8');
  if (file.endsWith('.json')) return Object.entries(JSON.parse(text) as Record<string, unknown>);
  try {
    return Object.entries(await parseHcl(path.basename(file), text));
  } catch (error) {
    throw new Diagnostic('Invalid variables file', String(error));
  }
}

/**
 * A value as HCL wrote it (in HCL's JSON form), as the literal it is: `${` starts an expression,
 * which a variable's value may not hold, and `$${` and `%%{` are escapes of `${` and `%{`.
 */
function literal(value: unknown, what: string): unknown {
  if (typeof value === 'string') {
    if (/(^|[^$])\$\{/.test(value)) throw new Diagnostic('Variables not allowed', `Variables may not be used here (${what}).`);
    return value.replace(/\$\$\{/g, '${').replace(/%%\{/g, '%{');
  }
  if (Array.isArray(value)) return value.map((item) => literal(item, what));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, literal(item, what)]));
  }
  return value;
}

/** Terraform reads a string-typed (or untyped) variable's text as is and any other type's as an HCL expression. */
async function fromText(text: string, type: CtyType | undefined, what: string): Promise<unknown> {
  if (type === undefined || type === 'string' || type === 'number' || type === 'bool') return text;
  try {
    const parsed = await parseHcl('value', `value = ${text}\n`);
    return literal(parsed.value, what);
  } catch (error) {
    throw new Diagnostic('Invalid value for input variable', String(error));
  }
}

/** Type constraints the stand-in models; undefined means unconstrained (`any`). */
export function parseTypeConstraint(text: string | undefined): CtyType | undefined {
  if (text === undefined) return undefined;
  const source = text.replace(/\s+/g, '');
  if (source === 'any') return undefined;
  if (['string', 'number', 'bool'].includes(source)) return source;
  const collection = /^(list|set|map)\((.+)\)$/.exec(source);
  if (collection?.[1] !== undefined && collection[2] !== undefined) {
    const element = parseTypeConstraint(collection[2]);
    if (element === undefined) throw new Refusal(`the type constraint ${text}`);
    return [collection[1], element];
  }
  throw new Refusal(`the type constraint ${text}`);
}

/** Terraform's conversion of a value to a type constraint, for the types the stand-in models. */
export function convert(value: unknown, type: CtyType | undefined, what: string): Typed {
  const fail = (): never => {
    throw new Diagnostic(
      'Invalid value for input variable',
      `The value given for ${what} is not suitable: ${JSON.stringify(value)} is not a ${JSON.stringify(type)}.`,
    );
  };
  if (type === undefined) return { value, type: typeOf(value) };
  if (value === null) return { value, type };
  if (type === 'string') {
    if (typeof value === 'string') return { value, type };
    if (typeof value === 'number' || typeof value === 'boolean') return { value: String(value), type };
    return fail();
  }
  if (type === 'number') {
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    return typeof number === 'number' && Number.isFinite(number) ? { value: number, type } : fail();
  }
  if (type === 'bool') {
    if (typeof value === 'boolean') return { value, type };
    return value === 'true' || value === 'false' ? { value: value === 'true', type } : fail();
  }
  const [kind, element] = type as [string, CtyType];
  if ((kind === 'list' || kind === 'set') && Array.isArray(value)) {
    return { value: value.map((item) => convert(item, element, what).value), type };
  }
  if (kind === 'map' && typeof value === 'object' && !Array.isArray(value)) {
    return { value: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v, element, what).value])), type };
  }
  return fail();
}

/** The type Terraform infers for a literal: objects and tuples, not maps and lists. */
export function typeOf(value: unknown): CtyType {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return ['tuple', value.map(typeOf)];
  if (typeof value === 'object' && value !== null)
    return ['object', Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeOf(v)]))];
  return 'dynamic';
}

/** Evaluates an expression as hcl2json renders it: literals as JSON, expressions inside "${...}". */
export function evaluate(expression: unknown, scope: Scope): Typed | typeof unknown {
  if (typeof expression === 'string') return evaluateString(expression, scope);
  if (Array.isArray(expression)) {
    const items = expression.map((item) => evaluate(item, scope));
    if (items.some((item) => item === unknown)) return unknown;
    const typed = items as Typed[];
    return { value: typed.map((item) => item.value), type: ['tuple', typed.map((item) => item.type)] };
  }
  if (typeof expression === 'object' && expression !== null) {
    const entries = Object.entries(expression).map(([key, item]) => [key, evaluate(item, scope)] as const);
    if (entries.some(([, item]) => item === unknown)) return unknown;
    const typed = entries as [string, Typed][];
    return {
      value: Object.fromEntries(typed.map(([key, item]) => [key, item.value])),
      type: ['object', Object.fromEntries(typed.map(([key, item]) => [key, item.type]))],
    };
  }
  return { value: expression, type: typeOf(expression) };
}

function evaluateString(text: string, scope: Scope): Typed | typeof unknown {
  if (text.includes('%{')) throw new Refusal(`template directives (%{...}) in "${text}"`);
  const whole = /^\$\{([^{}]*)\}$/.exec(text);
  if (whole?.[1] !== undefined) return reference(whole[1].trim(), scope);
  let known = true as boolean;
  const value = text.replace(/\$\{([^{}]*)\}/g, (_match, inner: string) => {
    const part = reference(inner.trim(), scope);
    if (part === unknown) {
      known = false;
      return '';
    }
    if (typeof part.value === 'string' || typeof part.value === 'number' || typeof part.value === 'boolean') return String(part.value);
    throw new Diagnostic(
      'Invalid template interpolation value',
      `Cannot include the given value in a string template: ${inner.trim()} is not a string.`,
    );
  });
  if (value.includes('${')) throw new Refusal(`the template "${text}"`);
  return known ? { value, type: 'string' } : unknown;
}

function reference(expression: string, scope: Scope): Typed | typeof unknown {
  const variable = /^var\.([A-Za-z_][\w-]*)$/.exec(expression);
  if (variable?.[1] !== undefined) {
    const value = scope.variables.get(variable[1]);
    if (value === undefined) throw new ConfigurationError(`Reference to undeclared input variable "${variable[1]}"`);
    return value;
  }
  const resource = /^(null_resource\.[A-Za-z_][\w-]*)\.id$/.exec(expression);
  if (resource?.[1] !== undefined) {
    const id = scope.ids.get(resource[1]);
    if (id === undefined) throw new ConfigurationError(`Reference to undeclared resource ${resource[1]}`);
    return id === unknown ? unknown : { value: id, type: 'string' };
  }
  throw new Refusal(`the expression ${expression}`);
}

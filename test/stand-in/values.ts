/**
 * Values as Terraform types them: type constraints and conversion to them, the types of literals,
 * sensitivity marks, and the few expressions the stand-in evaluates (literals, `var.NAME`,
 * `terraform_data.NAME.ATTRIBUTE`, "${...}") and their references.
 */
import { ConfigurationError } from './configuration.ts';
import { Diagnostic } from './diagnostics.ts';
import { Refusal } from './refusal.ts';

/** A type as the state file writes it: `"string"`, `["map","string"]`, `["object",{...}]`... */
export type CtyType = string | [string, unknown];

export interface Typed {
  value: unknown;
  type: CtyType;
  /** A variable's value as given, before conversion to its type (`"2"` from TF_VAR_size=2): what a plan records. */
  given?: unknown;
  /** Marked sensitive: from a sensitive variable, or made of one. */
  sensitive?: boolean;
}

/** A value known only after apply: a resource's id before the resource exists. */
export const unknown: unique symbol = Symbol('known after apply');

/** A resource's attributes as expressions read them; `unknown` for one known only after apply. */
export type AttributeValues = Record<string, Typed | typeof unknown>;

export interface Scope {
  variables: Map<string, Typed>;
  /** The attributes of every resource of the configuration, by address. */
  resources: Map<string, AttributeValues>;
}

/** The attributes of terraform_data that expressions may refer to. */
export const dataAttributes = ['id', 'input', 'output', 'triggers_replace'];

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

/** What cty says a value of the wrong type lacks. */
function requirement(type: CtyType | undefined): string {
  if (type === 'number' || type === 'bool') return `a ${type} is required`;
  if (Array.isArray(type)) return `${type[0]} of ${typeName(type[1] as CtyType)} required`;
  return `${typeName(type)} required`;
}

function typeName(type: CtyType | undefined): string {
  if (type === undefined) return 'any';
  return Array.isArray(type) ? `${type[0]} of ${typeName(type[1] as CtyType)}` : type;
}

/** Terraform's conversion of a value to a type constraint, for the types the stand-in models; `what` says whose value it is. */
export function convert(value: unknown, type: CtyType | undefined, what: string): Typed {
  const fail = (): never => {
    throw new Diagnostic('Invalid value for input variable', `${what}: ${requirement(type)}.`);
  };
  if (type === undefined) return { value: sortedValue(value), type: typeOf(value) };
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
    return { value: sortedEntries(Object.entries(value).map(([k, v]) => [k, convert(v, element, what).value])), type };
  }
  return fail();
}

/** The type Terraform infers for a literal: objects and tuples, not maps and lists. */
export function typeOf(value: unknown): CtyType {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return ['tuple', value.map(typeOf)];
  if (typeof value === 'object' && value !== null) return ['object', sortedEntries(Object.entries(value).map(([k, v]) => [k, typeOf(v)]))];
  return 'dynamic';
}

/** An object with its keys in Go's string order: Terraform keeps the attributes of objects and maps sorted. */
export function sortedEntries<T>(entries: [string, T][]): Record<string, T> {
  return Object.fromEntries(entries.sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
}

/** A value with its objects' keys sorted, as Terraform holds a literal. */
export function sortedValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedValue);
  if (typeof value === 'object' && value !== null) return sortedEntries(Object.entries(value).map(([k, v]) => [k, sortedValue(v)]));
  return value;
}

/** Evaluates an expression as hcl2json renders it: literals as JSON, expressions inside "${...}". */
export function evaluate(expression: unknown, scope: Scope): Typed | typeof unknown {
  if (typeof expression === 'string') return evaluateString(expression, scope);
  if (Array.isArray(expression)) {
    const items = expression.map((item) => evaluate(item, scope));
    if (items.some((item) => item === unknown)) return unknown;
    const typed = items as Typed[];
    refuseMarkedParts(typed);
    return { value: typed.map((item) => item.value), type: ['tuple', typed.map((item) => item.type)] };
  }
  if (typeof expression === 'object' && expression !== null) {
    const entries = Object.entries(expression).map(([key, item]) => [key, evaluate(item, scope)] as const);
    if (entries.some(([, item]) => item === unknown)) return unknown;
    const typed = entries as [string, Typed][];
    refuseMarkedParts(typed.map(([, item]) => item));
    return {
      value: sortedEntries(typed.map(([key, item]) => [key, item.value])),
      type: ['object', sortedEntries(typed.map(([key, item]) => [key, item.type]))],
    };
  }
  return { value: expression, type: typeOf(expression) };
}

/** Terraform marks the sensitive element of a collection, not the collection: a path the stand-in does not keep. */
function refuseMarkedParts(items: Typed[]): void {
  if (items.some((item) => item.sensitive === true)) throw new Refusal('a sensitive value inside a collection');
}

/** `${...}` interpolations of a string, `$${` (an escaped `${`) excepted. */
const interpolation = /(?<!\$)\$\{([^{}]*)\}/g;

function evaluateString(text: string, scope: Scope): Typed | typeof unknown {
  if (/(?<!%)%\{/.test(text)) throw new Refusal(`template directives (%{...}) in "${text}"`);
  const whole = /^\$\{([^{}]*)\}$/.exec(text);
  if (whole?.[1] !== undefined) return reference(whole[1].trim(), scope);
  let known = true as boolean;
  let sensitive = false as boolean;
  const value = text.replace(interpolation, (_match, inner: string) => {
    const part = reference(inner.trim(), scope);
    if (part === unknown) {
      known = false;
      return '';
    }
    sensitive ||= part.sensitive === true;
    if (typeof part.value === 'string' || typeof part.value === 'number' || typeof part.value === 'boolean') return String(part.value);
    throw new Diagnostic(
      'Invalid template interpolation value',
      `Cannot include the given value in a string template: ${inner.trim()} is not a string.`,
    );
  });
  if (/(?<!\$)\$\{/.test(value)) throw new Refusal(`the template "${text}"`);
  if (!known) return unknown;
  return { value: value.replace(/\$\$\{/g, '${').replace(/%%\{/g, '%{'), type: 'string', ...(sensitive ? { sensitive: true } : {}) };
}

/** What the reference names: a variable, or a resource and its attribute. */
type Referent = { kind: 'variable'; name: string } | { kind: 'attribute'; address: string; attribute: string };

function referent(expression: string): Referent {
  const variable = /^var\.([A-Za-z_][\w-]*)$/.exec(expression);
  if (variable?.[1] !== undefined) return { kind: 'variable', name: variable[1] };
  const attribute = /^(terraform_data\.[A-Za-z_][\w-]*)\.([a-z_]+)$/.exec(expression);
  if (attribute?.[1] !== undefined && attribute[2] !== undefined && dataAttributes.includes(attribute[2]))
    return { kind: 'attribute', address: attribute[1], attribute: attribute[2] };
  throw new Refusal(`the expression ${expression}`);
}

function reference(expression: string, scope: Scope): Typed | typeof unknown {
  const named = referent(expression);
  if (named.kind === 'variable') {
    const value = scope.variables.get(named.name);
    if (value === undefined) throw new ConfigurationError(`Reference to undeclared input variable "${named.name}"`);
    return value;
  }
  const values = scope.resources.get(named.address);
  if (values === undefined) throw new ConfigurationError(`Reference to undeclared resource ${named.address}`);
  return values[named.attribute] ?? unknown;
}

/**
 * The references of an expression as Terraform lists them in a plan's configuration: each in order
 * of appearance, once, a resource's attribute followed by the resource.
 */
export function referencesOf(expression: unknown): string[] {
  const found: string[] = [];
  const add = (reference: string) => {
    if (!found.includes(reference)) found.push(reference);
  };
  const walk = (part: unknown) => {
    if (typeof part === 'string') {
      for (const [, inner] of part.matchAll(interpolation)) {
        const named = referent((inner ?? '').trim());
        if (named.kind === 'variable') add(`var.${named.name}`);
        else {
          add(`${named.address}.${named.attribute}`);
          add(named.address);
        }
      }
    } else if (Array.isArray(part)) part.forEach(walk);
    else if (typeof part === 'object' && part !== null) Object.values(part).forEach(walk);
  };
  walk(expression);
  return found;
}

/** The resources an expression refers to. */
export function resourcesOf(expression: unknown): string[] {
  return referencesOf(expression).filter((reference) => /^terraform_data\.[^.]+$/.test(reference));
}

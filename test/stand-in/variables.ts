/**
 * Input variables from their sources, in Terraform's order of precedence: TF_VAR_*, then
 * terraform.tfvars and *.auto.tfvars (and their JSON forms), then -var and -var-file as given.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { VariableBlock } from './configuration.ts';
import { Diagnostic } from './diagnostics.ts';
import { parseHcl } from './hcl.ts';
import { convert, parseTypeConstraint, sortedValue, type CtyType, type Typed } from './values.ts';

export interface VariableSources {
  env: NodeJS.ProcessEnv;
  directory: string;
  /** -var 'k=v' and -var-file=F in the order given: later ones win. */
  arguments: { kind: 'var' | 'var-file'; text: string }[];
}

export async function readVariables(declared: VariableBlock[], sources: VariableSources): Promise<Map<string, Typed>> {
  const raw = new Map<string, Given>();
  for (const [key, text] of Object.entries(sources.env)) {
    const name = key.startsWith('TF_VAR_') ? key.slice('TF_VAR_'.length) : undefined;
    if (name !== undefined && text !== undefined) raw.set(name, { text, source: `set using the TF_VAR_${name} environment variable` });
  }
  const files = fs.readdirSync(sources.directory).sort();
  const automatic = [
    ...files.filter((f) => f === 'terraform.tfvars' || f === 'terraform.tfvars.json'),
    ...files.filter((f) => f.endsWith('.auto.tfvars') || f.endsWith('.auto.tfvars.json')),
  ];
  for (const file of automatic)
    for (const [name, value] of await readVariableFile(path.join(sources.directory, file)))
      raw.set(name, { value, source: `set in ${file}` });
  await addArguments(raw, declared, sources);
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
    values.set(variable.name, await typed(variable, given, type));
  }
  return values;
}

/** A variable's value as a source gives it: text (TF_VAR_*, -var) or an HCL value (files), and where it was set. */
type Given = ({ text: string } | { value: unknown }) & { source: string };

/** -var and -var-file in the order given, later ones winning; a -var must name a declared variable. */
async function addArguments(raw: Map<string, Given>, declared: VariableBlock[], sources: VariableSources): Promise<void> {
  for (const argument of sources.arguments) {
    if (argument.kind === 'var-file') {
      for (const [name, value] of await readVariableFile(path.resolve(sources.directory, argument.text)))
        raw.set(name, { value, source: `set in ${argument.text}` });
      continue;
    }
    const separator = argument.text.indexOf('=');
    if (separator <= 0) throw new Diagnostic('Invalid -var option', `The given -var option "${argument.text}" is not correctly specified.`);
    const name = argument.text.slice(0, separator);
    if (!declared.some((variable) => variable.name === name)) {
      throw new Diagnostic(
        'Value for undeclared variable',
        `A variable named "${name}" was assigned on the command line, but the root module does not declare a variable of that name. To use this value, add a "variable" block to the configuration.`,
      );
    }
    raw.set(name, { text: argument.text.slice(separator + 1), source: `set using -var="${name}=..."` });
  }
}

async function typed(variable: VariableBlock, given: Given | undefined, type: CtyType | undefined): Promise<Typed> {
  const what = `variable "${variable.name}"`;
  const value =
    given === undefined
      ? literal(variable.default, what)
      : 'value' in given
        ? literal(given.value, what)
        : await fromText(given.text, type, what);
  const unsuitable = `Unsuitable value for var.${variable.name} ${given?.source ?? `declared in ${variable.file}`}`;
  return { ...convert(value, type, unsuitable), given: sortedValue(value), ...(variable.sensitive ? { sensitive: true } : {}) };
}

/** The values -var and -var-file give, alone: what apply holds against a saved plan's. */
export async function argumentValues(declared: VariableBlock[], sources: VariableSources): Promise<Map<string, Typed>> {
  const raw = new Map<string, Given>();
  await addArguments(raw, declared, sources);
  const values = new Map<string, Typed>();
  for (const variable of declared) {
    const given = raw.get(variable.name);
    if (given !== undefined) values.set(variable.name, await typed(variable, given, parseTypeConstraint(variable.type)));
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

/**
 * The root module the stand-in reads: every `*.tf` of the working directory, override files merged
 * as Terraform merges them, and nothing it does not model. A construct outside that subset fails
 * the command naming it, so a test can never pass on configuration the stand-in silently ignored.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseHcl } from './hcl.ts';
import { Refusal } from './refusal.ts';

export interface VariableBlock {
  name: string;
  /** The type constraint as written, e.g. `map(string)`; undefined when the block has none. */
  type: string | undefined;
  hasDefault: boolean;
  default: unknown;
  description: string | undefined;
  /** `sensitive = true`: its value, and whatever is made of it, is marked sensitive. */
  sensitive: boolean;
  file: string;
}

/** A `terraform_data` resource: its arguments as hcl2json renders them, expressions inside "${...}". */
export interface ResourceBlock {
  address: string;
  name: string;
  /** undefined when the argument is not set (null, as Terraform reads it). */
  input: unknown;
  triggersReplace: unknown;
  /** The commands of its local-exec provisioners, in order, before evaluation. */
  commands: string[];
  /** Addresses named by depends_on, as written. */
  dependsOn: string[];
}

export interface OutputBlock {
  name: string;
  value: unknown;
  sensitive: boolean;
  description: string | undefined;
}

/** The `backend "http"` block's arguments; the TF_HTTP_* environment supplies the rest. */
export type BackendBlock = Record<string, unknown>;

export interface Configuration {
  backend: BackendBlock | undefined;
  variables: VariableBlock[];
  resources: ResourceBlock[];
  outputs: OutputBlock[];
}

/** Terraform's rule: `override.tf` and any `*_override.tf` are merged after the other files, in name order. */
const isOverride = (file: string) => file === 'override.tf' || file.endsWith('_override.tf');

type Blocks = Record<string, unknown>;

export async function readConfiguration(directory: string): Promise<Configuration> {
  const names = fs.readdirSync(directory).sort();
  const json = names.filter((name) => name.endsWith('.tf.json'));
  if (json.length > 0) throw new Refusal(`configuration in JSON syntax (${json.join(', ')})`);
  const files = names.filter((name) => name.endsWith('.tf'));
  const primary = files.filter((name) => !isOverride(name));
  if (primary.length === 0) throw new Refusal('a working directory without *.tf files (Terraform would plan nothing)');
  const configuration: Configuration = { backend: undefined, variables: [], resources: [], outputs: [] };
  for (const file of primary) addFile(configuration, file, await parseFile(directory, file), false);
  for (const file of files.filter(isOverride)) addFile(configuration, file, await parseFile(directory, file), true);
  for (const resource of configuration.resources) {
    const missing = resource.dependsOn.find((target) => !configuration.resources.some((other) => other.address === target));
    if (missing !== undefined)
      throw new ConfigurationError(`Reference to undeclared resource ${missing} in depends_on of ${resource.address}`);
  }
  return configuration;
}

async function parseFile(directory: string, file: string): Promise<Blocks> {
  try {
    return await parseHcl(file, fs.readFileSync(path.join(directory, file), 'utf8'));
  } catch (error) {
    throw new ConfigurationError(`Invalid configuration in ${file}: ${String(error)}`);
  }
}

/** A configuration Terraform itself would reject (as opposed to one the stand-in does not model). */
export class ConfigurationError extends Error {}

function addFile(configuration: Configuration, file: string, blocks: Blocks, override: boolean): void {
  for (const [kind, content] of Object.entries(blocks)) {
    switch (kind) {
      case 'terraform':
        for (const block of asList(content)) readTerraformBlock(configuration, block, file);
        break;
      case 'variable':
        for (const [name, block] of labelled(content)) mergeVariable(configuration, name, block, file, override);
        break;
      case 'resource':
        for (const [type, byName] of Object.entries(asRecord(content))) {
          if (type !== 'terraform_data') throw new Refusal(`resource type "${type}" in ${file} (only terraform_data is modelled)`);
          for (const [name, block] of labelled(byName)) mergeResource(configuration, name, block, file, override);
        }
        break;
      case 'output':
        for (const [name, block] of labelled(content)) mergeOutput(configuration, name, block, file, override);
        break;
      default:
        throw new Refusal(`"${kind}" blocks (in ${file})`);
    }
  }
}

function readTerraformBlock(configuration: Configuration, block: Blocks, file: string): void {
  for (const [key, value] of Object.entries(block)) {
    if (key === 'backend') {
      for (const [type, backend] of labelled(value)) {
        if (type !== 'http') throw new Refusal(`backend "${type}" in ${file} (only the http backend is modelled)`);
        // An override's backend block replaces the one it overrides, as in Terraform.
        configuration.backend = backend;
      }
    } else {
      throw new Refusal(`terraform { ${key} } in ${file}`);
    }
  }
}

function mergeVariable(configuration: Configuration, name: string, block: Blocks, file: string, override: boolean): void {
  refuseUnknown(block, ['type', 'default', 'description', 'sensitive'], `variable "${name}"`, file);
  const existing = configuration.variables.find((variable) => variable.name === name);
  if (override && existing === undefined)
    throw new ConfigurationError(`Missing base variable declaration to override: "${name}" in ${file}`);
  if (!override && existing !== undefined) throw new ConfigurationError(`Duplicate variable declaration: "${name}" in ${file}`);
  const variable: VariableBlock = existing ?? {
    name,
    type: undefined,
    hasDefault: false,
    default: undefined,
    description: undefined,
    sensitive: false,
    file,
  };
  if (block.type !== undefined) variable.type = unwrapExpression(block.type);
  if ('default' in block) Object.assign(variable, { hasDefault: true, default: block.default });
  if (block.description !== undefined) variable.description = literalString(block.description, `the description of variable "${name}"`);
  if (block.sensitive !== undefined) {
    if (typeof block.sensitive !== 'boolean') throw new Refusal(`a sensitive argument that is not a literal bool in variable "${name}"`);
    variable.sensitive = block.sensitive;
  }
  if (existing === undefined) configuration.variables.push(variable);
}

function mergeResource(configuration: Configuration, name: string, block: Blocks, file: string, override: boolean): void {
  refuseUnknown(block, ['input', 'triggers_replace', 'provisioner', 'depends_on'], `resource "terraform_data" "${name}"`, file);
  const address = `terraform_data.${name}`;
  const existing = configuration.resources.find((resource) => resource.address === address);
  if (override && existing === undefined) throw new ConfigurationError(`Missing resource to override: ${address} in ${file}`);
  if (!override && existing !== undefined) throw new ConfigurationError(`Duplicate resource configuration: ${address} in ${file}`);
  const resource: ResourceBlock = existing ?? { address, name, input: undefined, triggersReplace: undefined, commands: [], dependsOn: [] };
  if (block.depends_on !== undefined) {
    if (!Array.isArray(block.depends_on)) throw new ConfigurationError(`depends_on of ${address} must be a list`);
    resource.dependsOn = block.depends_on.map((reference) => {
      const target = unwrapExpression(reference);
      if (!/^terraform_data\.[A-Za-z_][\w-]*$/.test(target)) throw new Refusal(`depends_on ${target} in ${address}`);
      return target;
    });
  }
  // A null argument is no argument: Terraform plans both as null.
  if ('input' in block) resource.input = block.input ?? undefined;
  if ('triggers_replace' in block) resource.triggersReplace = block.triggers_replace ?? undefined;
  if (block.provisioner !== undefined) {
    // In an override file, nested blocks replace all the blocks of their type.
    resource.commands = [];
    for (const [type, provisioner] of labelled(block.provisioner)) {
      if (type !== 'local-exec') throw new Refusal(`provisioner "${type}" in ${address}`);
      refuseUnknown(provisioner, ['command'], `provisioner "local-exec" of ${address}`, file);
      if (typeof provisioner.command !== 'string') throw new ConfigurationError(`The local-exec provisioner of ${address} needs a command`);
      resource.commands.push(provisioner.command);
    }
  }
  if (existing === undefined) configuration.resources.push(resource);
}

function mergeOutput(configuration: Configuration, name: string, block: Blocks, file: string, override: boolean): void {
  refuseUnknown(block, ['value', 'sensitive', 'description'], `output "${name}"`, file);
  const existing = configuration.outputs.find((output) => output.name === name);
  if (override && existing === undefined) throw new ConfigurationError(`Missing base output definition to override: "${name}" in ${file}`);
  if (!override && existing !== undefined) throw new ConfigurationError(`Duplicate output definition: "${name}" in ${file}`);
  if (existing === undefined && !('value' in block)) throw new ConfigurationError(`The output "${name}" in ${file} needs a value`);
  const output: OutputBlock = existing ?? { name, value: undefined, sensitive: false, description: undefined };
  if ('value' in block) output.value = block.value;
  if (block.description !== undefined) output.description = literalString(block.description, `the description of output "${name}"`);
  if (block.sensitive !== undefined) {
    if (typeof block.sensitive !== 'boolean') throw new Refusal(`a sensitive argument that is not a literal bool in output "${name}"`);
    output.sensitive = block.sensitive;
  }
  if (existing === undefined) configuration.outputs.push(output);
}

function refuseUnknown(block: Blocks, known: string[], where: string, file: string): void {
  for (const key of Object.keys(block)) if (!known.includes(key)) throw new Refusal(`"${key}" in ${where} (${file})`);
}

function literalString(value: unknown, what: string): string {
  if (typeof value !== 'string' || /(^|[^$])\$\{/.test(value)) throw new ConfigurationError(`${what} must be a literal string`);
  return value;
}

/** hcl2json writes a block with labels as nested objects ending in a list of bodies. */
function labelled(content: unknown): [string, Blocks][] {
  return Object.entries(asRecord(content)).flatMap(([label, bodies]) => asList(bodies).map((body): [string, Blocks] => [label, body]));
}

function asRecord(content: unknown): Blocks {
  if (typeof content !== 'object' || content === null || Array.isArray(content))
    throw new ConfigurationError('Unexpected configuration shape');
  return content as Blocks;
}

function asList(content: unknown): Blocks[] {
  if (!Array.isArray(content)) throw new ConfigurationError('Unexpected configuration shape');
  return content.map(asRecord);
}

/** hcl2json renders a bare expression such as `map(string)` as the template `${map(string)}`. */
export function unwrapExpression(value: unknown): string {
  if (typeof value !== 'string') throw new ConfigurationError(`Expected an expression, found ${JSON.stringify(value)}`);
  const match = /^\$\{(.*)\}$/s.exec(value);
  return match?.[1] ?? value;
}

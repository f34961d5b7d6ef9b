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
  file: string;
}

export interface ResourceBlock {
  address: string;
  name: string;
  /** The `triggers` argument before evaluation: a map whose values may be expressions. */
  triggers: Record<string, unknown> | undefined;
  commands: string[];
  /** Addresses named by depends_on, created before this one. */
  dependsOn: string[];
}

export interface OutputBlock {
  name: string;
  value: unknown;
  sensitive: boolean;
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
          if (type !== 'null_resource') throw new Refusal(`resource type "${type}" in ${file} (only null_resource is modelled)`);
          for (const [name, block] of labelled(byName)) mergeResource(configuration, name, block, file, override);
        }
        break;
      case 'output':
        for (const [name, block] of labelled(content)) mergeOutput(configuration, name, block, file, override);
        break;
      case 'provider':
        for (const [name, block] of labelled(content)) {
          if (name !== 'null' || Object.keys(block).length > 0) throw new Refusal(`provider "${name}" configuration in ${file}`);
        }
        break;
      default:
        throw new Refusal(`"${kind}" blocks (in ${file})`);
    }
  }
}

function readTerraformBlock(configuration: Configuration, block: Blocks, file: string): void {
  for (const [key, value] of Object.entries(block)) {
    if (key === 'required_providers') {
      for (const entry of asList(value)) {
        for (const [name, requirement] of Object.entries(entry)) {
          const source = typeof requirement === 'object' && requirement !== null ? (requirement as Blocks).source : undefined;
          if (name !== 'null' || (source !== undefined && source !== 'hashicorp/null')) {
            throw new Refusal(`required provider "${name}" in ${file} (only hashicorp/null is modelled)`);
          }
        }
      }
    } else if (key === 'backend') {
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
  refuseUnknown(block, ['type', 'default', 'description'], `variable "${name}"`, file);
  const existing = configuration.variables.find((variable) => variable.name === name);
  if (override && existing === undefined)
    throw new ConfigurationError(`Missing base variable declaration to override: "${name}" in ${file}`);
  if (!override && existing !== undefined) throw new ConfigurationError(`Duplicate variable declaration: "${name}" in ${file}`);
  const variable = existing ?? { name, type: undefined, hasDefault: false, default: undefined, file };
  if (block.type !== undefined) variable.type = unwrapExpression(block.type);
  if ('default' in block) Object.assign(variable, { hasDefault: true, default: block.default });
  if (existing === undefined) configuration.variables.push(variable);
}

function mergeResource(configuration: Configuration, name: string, block: Blocks, file: string, override: boolean): void {
  refuseUnknown(block, ['triggers', 'provisioner', 'depends_on'], `resource "null_resource" "${name}"`, file);
  const address = `null_resource.${name}`;
  const existing = configuration.resources.find((resource) => resource.address === address);
  if (override && existing === undefined) throw new ConfigurationError(`Missing resource to override: ${address} in ${file}`);
  if (!override && existing !== undefined) throw new ConfigurationError(`Duplicate resource configuration: ${address} in ${file}`);
  const resource: ResourceBlock = existing ?? { address, name, triggers: undefined, commands: [], dependsOn: [] };
  if (block.depends_on !== undefined) {
    if (!Array.isArray(block.depends_on)) throw new ConfigurationError(`depends_on of ${address} must be a list`);
    resource.dependsOn = block.depends_on.map((reference) => {
      const target = unwrapExpression(reference);
      if (!/^null_resource\.[A-Za-z_][\w-]*$/.test(target)) throw new Refusal(`depends_on ${target} in ${address}`);
      return target;
    });
  }
  if (block.triggers !== undefined) {
    if (typeof block.triggers !== 'object' || block.triggers === null || Array.isArray(block.triggers)) {
      throw new Refusal(`a triggers value that is not a map literal in ${address}`);
    }
    resource.triggers = block.triggers as Record<string, unknown>;
  }
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
  const output = existing ?? { name, value: undefined, sensitive: false };
  if ('value' in block) output.value = block.value;
  if (block.sensitive !== undefined) {
    if (typeof block.sensitive !== 'boolean') throw new Refusal(`a sensitive argument that is not a literal bool in output "${name}"`);
    output.sensitive = block.sensitive;
  }
  if (existing === undefined) configuration.outputs.push(output);
}

function refuseUnknown(block: Blocks, known: string[], where: string, file: string): void {
  for (const key of Object.keys(block)) if (!known.includes(key)) throw new Refusal(`"${key}" in ${where} (${file})`);
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

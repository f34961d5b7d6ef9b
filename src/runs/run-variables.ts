import { parseHcl } from '../terraform/hcl.js';

/** A variable as a run receives it: a global variable, a collection's item or a workspace's variable. */
export interface RunVariable {
  key: string;
  value: string;
  category: 'TERRAFORM' | 'ENV';
  hcl: boolean;
  sensitive: boolean;
}

/** Where a run's variables come from (README, "How variables combine", says which wins). */
export interface VariableLayers {
  globals: readonly RunVariable[];
  /** The collections the workspace references; a higher priority wins, then the earlier name. */
  collections: readonly { id?: string; name: string; priority: number; items: readonly RunVariable[] }[];
  workspace: readonly RunVariable[];
}

/** Which layer a variable came from: the workspace's own, a global variable, or an item of a collection. */
export type VariableOrigin =
  { layer: 'workspace' } | { layer: 'global' } | { layer: 'collection'; collection: { id: string | null; name: string; priority: number } };

/** A variable a run receives, where it came from, and where the variables of the same key and category it won over came from. */
export interface ResolvedVariable {
  variable: RunVariable;
  origin: VariableOrigin;
  overrides: VariableOrigin[];
}

/**
 * A step's `inputsTerraform` and `inputsEnv`: for a category it names, the step takes these global
 * variables under these keys (`key: $GLOBAL`) in place of every global variable and collection.
 */
export type StepImports = Partial<Record<RunVariable['category'], Readonly<Record<string, string>>>>;

export interface RunVariables {
  /** ENV variables, for every process of the run. */
  environment: Record<string, string>;
  /** TERRAFORM variables as a `.auto.tfvars` file: strings quoted, HCL values as written. */
  terraformFile: string;
  /** The values no output, log or answer may show. */
  secrets: string[];
  /** Why the run cannot start, in words for the job's record; empty when it can. */
  problems: string[];
  /** What a step's log says first: the global variables its inputs name that do not exist. */
  notes: string[];
}

/** The name of the file the TERRAFORM variables are written to, in the folder Terraform runs in. */
export const terraformVariablesFile = 'zz-stratum.auto.tfvars';

/** What an environment variable's name may be, wherever a run's environment gets one. */
export const environmentKey = /^[A-Za-z_][A-Za-z0-9_]*$/;

const terraformKey = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** A string as an HCL quoted literal: JSON's escapes, and template sequences kept literal. */
export function hclString(text: string): string {
  return JSON.stringify(text).replace(/[$%]\{/g, (sequence) => `${sequence.charAt(0)}${sequence}`);
}

/**
 * Which variable wins each key of each category, as Terrakube's job engine decides (the order is
 * assembleVariables' below), with where it came from and what it overrode: the run's variables and
 * the workspace's effective variables are both read from here.
 */
export function resolveVariables(layers: VariableLayers, imports: StepImports = {}): { resolved: ResolvedVariable[]; notes: string[] } {
  const collections = [...layers.collections].sort((a, b) => b.priority - a.priority || a.name.localeCompare(b.name));
  const notes: string[] = [];
  const global: VariableOrigin = { layer: 'global' };
  const shared = (category: RunVariable['category']): { variable: RunVariable; origin: VariableOrigin }[] => {
    const named = imports[category];
    if (named === undefined)
      return [
        ...layers.globals.map((variable) => ({ variable, origin: global })),
        ...collections.flatMap((collection) => {
          const origin: VariableOrigin = {
            layer: 'collection',
            collection: { id: collection.id ?? null, name: collection.name, priority: collection.priority },
          };
          return collection.items.map((variable) => ({ variable, origin }));
        }),
      ].filter(({ variable }) => variable.category === category);
    return Object.entries(named).flatMap(([key, reference]) => {
      // Terrakube reads `$NAME` and `NAME` alike: every `$` is dropped.
      const name = reference.replaceAll('$', '');
      const found = layers.globals.find((variable) => variable.category === category && variable.key === name);
      if (found === undefined) notes.push(`${key} is not set: the organization has no ${category} global variable ${name}.`);
      return found === undefined ? [] : [{ variable: { ...found, key }, origin: global }];
    });
  };
  const own: VariableOrigin = { layer: 'workspace' };
  const winners = new Map<string, ResolvedVariable>();
  for (const candidate of [...layers.workspace.map((variable) => ({ variable, origin: own })), ...shared('TERRAFORM'), ...shared('ENV')]) {
    const key = `${candidate.variable.category}:${candidate.variable.key}`;
    const winner = winners.get(key);
    if (winner === undefined) winners.set(key, { ...candidate, overrides: [] });
    else winner.overrides.push(candidate.origin);
  }
  return { resolved: [...winners.values()], notes };
}

/**
 * A run's variables as Terrakube's job engine assembles them, each category on its own: the
 * workspace's own variables; then, for keys it does not set, the organization's global variables;
 * then the items of the workspace's collections, from the highest priority to the lowest (equal
 * priorities: by name). A category the step imports takes the named global variables in place of
 * the last two. A sensitive value wherever it comes from is a secret of the run, even one another
 * layer replaced or the step did not import (it may still be printed by something that read it).
 * An HCL value must parse as one.
 */
export async function assembleVariables(layers: VariableLayers, imports: StepImports = {}): Promise<RunVariables> {
  const { resolved, notes } = resolveVariables(layers, imports);
  const winners = resolved.map(({ variable }) => variable);
  const secrets = new Set<string>();
  for (const variable of [...layers.globals, ...layers.collections.flatMap((collection) => collection.items), ...layers.workspace]) {
    if (variable.sensitive && variable.value !== '') secrets.add(variable.value);
  }
  const problems: string[] = [];
  for (const variable of layers.workspace) {
    if (variable.sensitive && variable.value === '') problems.push(`The sensitive variable ${variable.key} has no value.`);
  }
  const environment: Record<string, string> = {};
  const lines: string[] = [];
  for (const variable of winners) {
    if (variable.category === 'ENV') {
      // Stored keys are checked when saved; a step's inputs name theirs in the template.
      if (environmentKey.test(variable.key)) environment[variable.key] = variable.value;
      else problems.push(`The environment variable ${JSON.stringify(variable.key)} is not a name an environment variable may have.`);
      continue;
    }
    if (!terraformKey.test(variable.key)) {
      problems.push(`The Terraform variable ${JSON.stringify(variable.key)} is not a name Terraform accepts.`);
      continue;
    }
    if (!variable.hcl) {
      lines.push(`${variable.key} = ${hclString(variable.value)}`);
      continue;
    }
    const line = `${variable.key} = ${variable.value}`;
    // Parsed alone, so a value cannot close its line and add other variables, and a problem names its key.
    const problem = await parseHcl(terraformVariablesFile, `${line}\n`).then(
      (body) => (Object.keys(body as object).length === 1 ? undefined : 'is more than one value'),
      () => 'does not parse as HCL',
    );
    if (problem === undefined) lines.push(line);
    else problems.push(`The HCL value of the Terraform variable ${variable.key} ${problem}.`);
  }
  return { environment, terraformFile: lines.length === 0 ? '' : `${lines.join('\n')}\n`, secrets: [...secrets], problems, notes };
}

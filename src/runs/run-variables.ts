import { parseHcl } from '../terraform/hcl.js';

/** A variable as a run receives it: a global variable, a collection's item or a workspace's variable. */
export interface RunVariable {
  key: string;
  value: string;
  category: 'TERRAFORM' | 'ENV';
  hcl: boolean;
  sensitive: boolean;
}

/** Where a run's variables come from, each later layer winning a key over the earlier ones. */
export interface VariableLayers {
  globals: readonly RunVariable[];
  /** The collections the workspace references; a higher priority wins, then the earlier name. */
  collections: readonly { name: string; priority: number; items: readonly RunVariable[] }[];
  workspace: readonly RunVariable[];
}

export interface RunVariables {
  /** ENV variables, for every process of the run. */
  environment: Record<string, string>;
  /** TERRAFORM variables as a `.auto.tfvars` file: strings quoted, HCL values as written. */
  terraformFile: string;
  /** The values no output, log or answer may show. */
  secrets: string[];
  /** Why the run cannot start, in words for the job's record; empty when it can. */
  problems: string[];
}

/** The name of the file the TERRAFORM variables are written to, in the folder Terraform runs in. */
export const terraformVariablesFile = 'zz-stratum.auto.tfvars';

const terraformKey = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** A string as an HCL quoted literal: JSON's escapes, and template sequences kept literal. */
export function hclString(text: string): string {
  return JSON.stringify(text).replace(/[$%]\{/g, (sequence) => `${sequence.charAt(0)}${sequence}`);
}

/**
 * A run's variables, as the issue orders them: the organization's global variables, then the
 * workspace's collections from the lowest priority to the highest, then the workspace's own. A
 * sensitive value wherever it comes from is a secret of the run, even when a later layer replaces it
 * (it may still be printed by something that read it). An HCL value must parse as one.
 */
export async function assembleVariables(layers: VariableLayers): Promise<RunVariables> {
  const collections = [...layers.collections].sort((a, b) => a.priority - b.priority || b.name.localeCompare(a.name));
  const ordered = [...layers.globals, ...collections.flatMap((collection) => collection.items), ...layers.workspace];
  const winners = new Map<string, RunVariable>();
  const secrets = new Set<string>();
  for (const variable of ordered) {
    winners.set(`${variable.category}:${variable.key}`, variable);
    if (variable.sensitive && variable.value !== '') secrets.add(variable.value);
  }
  const problems: string[] = [];
  for (const variable of layers.workspace) {
    if (variable.sensitive && variable.value === '') problems.push(`The sensitive variable ${variable.key} has no value.`);
  }
  const environment: Record<string, string> = {};
  const lines: string[] = [];
  for (const variable of winners.values()) {
    if (variable.category === 'ENV') {
      environment[variable.key] = variable.value;
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
  return { environment, terraformFile: lines.length === 0 ? '' : `${lines.join('\n')}\n`, secrets: [...secrets], problems };
}

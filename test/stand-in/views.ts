/**
 * What the stand-in prints: Terraform 0.13's human lines for plan and apply (close, not
 * byte-exact: Stratum reads exit codes, not text), and the machine-readable views (`show -json`,
 * `output -json`) that Terraform prints in clear text, sensitive values included.
 */
import { standInVersion } from './http-state.ts';
import type { Plan } from './plan.ts';
import { instancesOf, type StateV4 } from './state.ts';

export function planLines(plan: Plan, saved: string | undefined): string[] {
  const lines: string[] = [];
  const changing = plan.resources.filter((change) => !change.actions.includes('no-op'));
  const outputs = plan.outputChanges.filter((change) => change.actions[0] !== 'no-op');
  if (changing.length === 0 && outputs.length === 0) {
    return [
      '',
      'No changes. Infrastructure is up-to-date.',
      '',
      'This means that Terraform did not detect any differences between your',
      'configuration and real physical resources that exist. As a result, no',
      'actions need to be performed.',
    ];
  }
  lines.push('', 'An execution plan has been generated and is shown below.', 'Resource actions are indicated with the following symbols:');
  if (changing.some((change) => change.actions.length === 1 && change.actions[0] === 'create')) lines.push('  + create');
  if (changing.some((change) => change.actions.length === 1 && change.actions[0] === 'delete')) lines.push('  - destroy');
  if (changing.some((change) => change.actions.length === 2)) lines.push('-/+ destroy and then create replacement');
  lines.push('', 'Terraform will perform the following actions:', '');
  for (const change of changing) {
    const verb =
      change.actions.length === 2 ? 'must be replaced' : change.actions[0] === 'create' ? 'will be created' : 'will be destroyed';
    lines.push(`  # ${change.address} ${verb}`);
    lines.push(
      `  ${change.actions.length === 2 ? '-/+' : change.actions[0] === 'create' ? '+' : '-'} resource "null_resource" "${change.name}" {`,
    );
    lines.push(
      `      id       = ${change.before?.id === undefined || change.actions.includes('create') ? '(known after apply)' : JSON.stringify(change.before.id)}`,
    );
    const triggers = change.after?.triggers ?? change.before?.triggers ?? null;
    if (triggers !== null) {
      lines.push('      triggers = {');
      for (const [key, value] of Object.entries(triggers)) lines.push(`          ${JSON.stringify(key)} = ${JSON.stringify(value)}`);
      lines.push('        }');
    }
    lines.push('    }', '');
  }
  const add = changing.filter((change) => change.actions.includes('create')).length;
  const destroy = changing.filter((change) => change.actions.includes('delete')).length;
  lines.push(`Plan: ${add} to add, 0 to change, ${destroy} to destroy.`);
  if (outputs.length > 0) {
    lines.push('', 'Changes to Outputs:');
    for (const change of outputs) {
      const symbol = { create: '+', update: '~', delete: '-', 'no-op': ' ' }[change.actions[0]];
      const value = change.sensitive
        ? '(sensitive value)'
        : change.after === undefined
          ? '(known after apply)'
          : JSON.stringify(change.after);
      lines.push(`  ${symbol} ${change.name} = ${change.actions[0] === 'delete' ? 'null' : value}`);
    }
  }
  lines.push('', '------------------------------------------------------------------------');
  if (saved !== undefined)
    lines.push(
      '',
      `This plan was saved to: ${saved}`,
      '',
      'To perform exactly these actions, run the following command to apply:',
      `    terraform apply ${JSON.stringify(saved)}`,
    );
  return lines;
}

export function applySummary(destroyCommand: boolean, added: number, destroyed: number, state: StateV4): string[] {
  const lines = [
    '',
    destroyCommand
      ? `Destroy complete! Resources: ${destroyed} destroyed.`
      : `Apply complete! Resources: ${added} added, 0 changed, ${destroyed} destroyed.`,
  ];
  const names = Object.keys(state.outputs).sort();
  if (names.length > 0) {
    lines.push('', 'Outputs:', '');
    for (const name of names) {
      const output = state.outputs[name];
      if (output === undefined) continue;
      lines.push(
        `${name} = ${output.sensitive === true ? '<sensitive>' : typeof output.value === 'string' ? output.value : JSON.stringify(output.value)}`,
      );
    }
  }
  return lines;
}

/** `output -json`: every output with its type and value, in clear text as Terraform prints it. */
export function outputsJson(state: StateV4 | undefined): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(state?.outputs ?? {}).map(([name, output]) => [
      name,
      { sensitive: output.sensitive === true, type: output.type, value: output.value },
    ]),
  );
}

/** `show -json` of the state: outputs and the root module's resources. */
export function stateJson(state: StateV4 | undefined): Record<string, unknown> {
  if (state === undefined || (state.resources.length === 0 && Object.keys(state.outputs).length === 0)) return { format_version: '0.1' };
  return {
    format_version: '0.1',
    terraform_version: state.terraform_version,
    values: {
      outputs: Object.fromEntries(
        Object.entries(state.outputs).map(([name, output]) => [name, { sensitive: output.sensitive === true, value: output.value }]),
      ),
      root_module: {
        resources: instancesOf(state).map((instance) => ({
          address: instance.address,
          mode: 'managed',
          type: 'null_resource',
          name: instance.name,
          provider_name: 'registry.terraform.io/hashicorp/null',
          schema_version: 0,
          values: instance.attributes,
          ...(instance.tainted ? { tainted: true } : {}),
        })),
      },
    },
  };
}

/** `show -json PLANFILE`: the planned changes, without `planned_values`, `prior_state` and `configuration`. */
export function planJson(plan: Plan): Record<string, unknown> {
  return {
    format_version: '0.1',
    terraform_version: standInVersion,
    variables: Object.fromEntries(Object.entries(plan.variables).map(([name, typed]) => [name, { value: typed.value }])),
    resource_changes: plan.resources.map((change) => ({
      address: change.address,
      mode: 'managed',
      type: 'null_resource',
      name: change.name,
      provider_name: 'registry.terraform.io/hashicorp/null',
      change: {
        actions: change.actions,
        before: change.before,
        after: change.after,
        after_unknown: change.actions.includes('create') ? { id: true, ...(change.after?.triggers ? { triggers: {} } : {}) } : {},
      },
    })),
    output_changes: Object.fromEntries(
      plan.outputChanges.map((change) => [
        change.name,
        // Terraform leaves "after" out, rather than null, for a value known only after apply.
        {
          actions: change.actions,
          before: change.before,
          ...(change.after === undefined ? {} : { after: change.after }),
          after_unknown: change.after === undefined,
        },
      ]),
    ),
  };
}

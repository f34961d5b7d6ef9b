/**
 * The JSON form of a state that `terraform show -json` prints, derived from the state itself
 * (format version 4), so that the web UI's state pages (its diagram, its resources and outputs) read
 * a state Stratum stores without running Terraform: root and child modules' resources with their
 * addresses, providers, values and dependencies, and the root outputs. Child modules are listed one
 * level deep under the root, each by its full address, rather than nested in their parents.
 */

interface Instance {
  index_key?: string | number;
  schema_version?: number;
  attributes?: unknown;
  dependencies?: string[];
}

interface Resource {
  module?: string;
  mode?: string;
  type?: unknown;
  name?: unknown;
  provider?: unknown;
  instances?: Instance[];
}

interface Output {
  value?: unknown;
  type?: unknown;
  sensitive?: boolean;
}

interface ShownResource {
  address: string;
  mode: string;
  type: string;
  name: string;
  index?: string | number;
  provider_name: string;
  schema_version: number;
  values: unknown;
  depends_on?: string[];
}

/** The JSON `terraform show -json` prints for a state text; a state of another format gives its values empty. */
export function shownState(text: string): Record<string, unknown> {
  const state = JSON.parse(text) as { version?: unknown; terraform_version?: unknown; outputs?: unknown; resources?: unknown };
  const root: ShownResource[] = [];
  const children = new Map<string, ShownResource[]>();
  const resources = Array.isArray(state.resources) ? (state.resources as Resource[]) : [];
  for (const resource of resources) {
    const shown = shownInstances(resource);
    if (resource.module === undefined || resource.module === '') root.push(...shown);
    else children.set(resource.module, [...(children.get(resource.module) ?? []), ...shown]);
  }
  const outputs: Record<string, { sensitive: boolean; value: unknown; type?: unknown }> = {};
  if (typeof state.outputs === 'object' && state.outputs !== null) {
    for (const [name, output] of Object.entries(state.outputs as Record<string, Output>)) {
      outputs[name] = {
        sensitive: output.sensitive === true,
        value: output.value,
        ...(output.type === undefined ? {} : { type: output.type }),
      };
    }
  }
  return {
    format_version: '0.1',
    ...(typeof state.terraform_version === 'string' ? { terraform_version: state.terraform_version } : {}),
    values: {
      outputs,
      root_module: {
        resources: root,
        ...(children.size === 0
          ? {}
          : { child_modules: [...children].map(([address, moduleResources]) => ({ address, resources: moduleResources })) }),
      },
    },
  };
}

function shownInstances(resource: Resource): ShownResource[] {
  const mode = resource.mode === 'data' ? 'data' : 'managed';
  const type = typeof resource.type === 'string' ? resource.type : '';
  const name = typeof resource.name === 'string' ? resource.name : '';
  const prefix = `${resource.module === undefined || resource.module === '' ? '' : `${resource.module}.`}${mode === 'data' ? 'data.' : ''}`;
  // `provider["registry.terraform.io/hashicorp/null"]` (or with an alias after it) names the provider.
  const written = typeof resource.provider === 'string' ? resource.provider : '';
  const provider = /^provider\["([^"]+)"\]/.exec(written)?.[1] ?? written;
  return (resource.instances ?? []).map((instance) => {
    const index = instance.index_key;
    return {
      address: `${prefix}${type}.${name}${index === undefined ? '' : `[${JSON.stringify(index)}]`}`,
      mode,
      type,
      name,
      ...(index === undefined ? {} : { index }),
      provider_name: provider,
      schema_version: instance.schema_version ?? 0,
      values: instance.attributes ?? {},
      ...(instance.dependencies === undefined ? {} : { depends_on: instance.dependencies }),
    };
  });
}

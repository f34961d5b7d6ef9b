/**
 * State format version 4 as Terraform writes it for the null provider's null_resource, and the
 * null provider's own rule for ids (a random non-negative 63-bit integer, in decimal).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { standInVersion } from './http-state.ts';
import type { CtyType } from './values.ts';

export interface NullResourceAttributes {
  id: string;
  triggers: Record<string, string> | null;
}

export interface InstanceV4 {
  status?: 'tainted';
  schema_version: 0;
  attributes: NullResourceAttributes;
  private?: string;
}

export interface ResourceV4 {
  mode: 'managed';
  type: 'null_resource';
  name: string;
  provider: string;
  instances: InstanceV4[];
}

export interface OutputV4 {
  value: unknown;
  type: CtyType;
  sensitive?: true;
}

export interface StateV4 {
  version: 4;
  terraform_version: string;
  serial: number;
  lineage: string;
  outputs: Record<string, OutputV4>;
  resources: ResourceV4[];
}

export const nullProvider = 'provider["registry.terraform.io/hashicorp/null"]';

export function nullResourceId(): string {
  return (randomBytes(8).readBigUInt64BE() >> 1n).toString();
}

/** The instance of a resource by its address, with the flag that it failed its provisioners. */
export interface Instance {
  address: string;
  name: string;
  attributes: NullResourceAttributes;
  tainted: boolean;
}

export function instancesOf(state: StateV4 | undefined): Instance[] {
  return (state?.resources ?? []).flatMap((resource) =>
    resource.instances.map((instance) => ({
      address: `${resource.type}.${resource.name}`,
      name: resource.name,
      attributes: instance.attributes,
      tainted: instance.status === 'tainted',
    })),
  );
}

/**
 * The next snapshot: the same lineage and the serial after the prior one. A first snapshot gets a
 * new lineage and serial 0, as Terraform 0.13 writes it (Terraform 1.x starts at 1).
 */
export function nextState(prior: StateV4 | undefined, instances: Instance[], outputs: Record<string, OutputV4>): StateV4 {
  return {
    version: 4,
    terraform_version: standInVersion,
    serial: prior === undefined ? 0 : prior.serial + 1,
    lineage: prior?.lineage ?? randomUUID(),
    outputs,
    resources: instances.map((instance) => ({
      mode: 'managed',
      type: 'null_resource',
      name: instance.name,
      provider: nullProvider,
      instances: [
        {
          ...(instance.tainted ? { status: 'tainted' as const } : {}),
          schema_version: 0,
          attributes: instance.attributes,
          private: 'bnVsbA==',
        },
      ],
    })),
  };
}

/**
 * Terraform uploads no snapshot when nothing but the serial would change; its check reads a prior
 * serial of 0 as "unknown", so a state still at serial 0 is written again.
 */
export function needsUpload(prior: StateV4 | undefined, next: StateV4): boolean {
  if (prior === undefined || prior.serial === 0) return true;
  const content = (state: StateV4) => JSON.stringify({ outputs: state.outputs, resources: state.resources });
  return content(prior) !== content(next);
}

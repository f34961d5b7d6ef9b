/**
 * State format version 4 as Terraform 1.11 writes it for the built-in `terraform_data` resource:
 * its dynamically typed attributes as `{value, type}`, `sensitive_attributes`, the `dependencies`
 * of each instance and `check_results`. Ids and lineages are UUIDs in the form Terraform's
 * generator prints them (random hex in the 8-4-4-4-12 layout, no version digit).
 */
import { randomBytes } from 'node:crypto';
import { standInVersion } from './version.ts';
import type { CtyType } from './values.ts';

/** A value of a dynamically typed attribute, as the state keeps it. */
export interface DynamicValue {
  value: unknown;
  type: CtyType;
}

export interface DataAttributes {
  id: string;
  input: DynamicValue | null;
  output: DynamicValue | null;
  triggers_replace: DynamicValue | null;
}

/** A path to a sensitive part of the attributes; the stand-in marks whole attributes only. */
export type SensitivePath = { type: 'get_attr'; value: string }[];

export interface InstanceV4 {
  status?: 'tainted';
  schema_version: 0;
  attributes: DataAttributes;
  /** Absent from states written before Terraform 0.15. */
  sensitive_attributes?: SensitivePath[];
  dependencies?: string[];
}

export interface ResourceV4 {
  mode: 'managed';
  type: 'terraform_data';
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
  check_results: null;
}

export const resourceType = 'terraform_data';
export const providerName = 'terraform.io/builtin/terraform';
export const providerReference = `provider["${providerName}"]`;

/** A UUID as Terraform's generator writes one: 16 random bytes, hex, dashes at 8-4-4-4-12. */
export function terraformUuid(): string {
  const hex = randomBytes(16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A resource instance as the stand-in works with it: its address, attributes and whether it is tainted. */
export interface Instance {
  address: string;
  name: string;
  attributes: DataAttributes;
  tainted: boolean;
  /** Addresses it depends on, as the state records them (sorted). */
  dependencies: string[];
  /** The attributes marked sensitive (an `input` made of a sensitive variable; never the `output` copied from it). */
  sensitive: string[];
}

/** What a snapshot holds besides its serial and lineage: the part Terraform compares to decide whether to write. */
export interface Snapshot {
  instances: Instance[];
  outputs: Record<string, OutputV4>;
}

export function snapshotOf(state: StateV4 | undefined): Snapshot {
  return {
    instances: (state?.resources ?? []).flatMap((resource) =>
      resource.instances.map((instance) => ({
        address: `${resource.type}.${resource.name}`,
        name: resource.name,
        attributes: instance.attributes,
        tainted: instance.status === 'tainted',
        dependencies: instance.dependencies ?? [],
        sensitive: (instance.sensitive_attributes ?? []).flatMap((path) =>
          path.length === 1 && path[0] !== undefined ? [path[0].value] : [],
        ),
      })),
    ),
    outputs: state?.outputs ?? {},
  };
}

/** The state document of a snapshot: resources sorted by address and outputs by name, as Terraform writes them. */
export function stateDocument(snapshot: Snapshot | undefined, lineage: string, serial: number): StateV4 {
  const instances = [...(snapshot?.instances ?? [])].sort((a, b) => compare(a.address, b.address));
  const outputs = snapshot?.outputs ?? {};
  return {
    version: 4,
    terraform_version: standInVersion,
    serial,
    lineage,
    outputs: Object.fromEntries(
      Object.keys(outputs)
        .sort(compare)
        .map((name) => [name, outputs[name] as OutputV4]),
    ),
    resources: instances.map((instance) => ({
      mode: 'managed',
      type: resourceType,
      name: instance.name,
      provider: providerReference,
      instances: [
        {
          ...(instance.tainted ? { status: 'tainted' as const } : {}),
          schema_version: 0,
          attributes: instance.attributes,
          sensitive_attributes: [...instance.sensitive].sort(compare).map((name): SensitivePath => [{ type: 'get_attr', value: name }]),
          ...(instance.dependencies.length > 0 ? { dependencies: instance.dependencies } : {}),
        },
      ],
    })),
    check_results: null,
  };
}

/** A state document as Terraform writes it to a backend or a file. */
export const stateText = (state: StateV4) => `${JSON.stringify(state, null, 2)}\n`;

/** Go's string order (by UTF-8 bytes), which Terraform sorts addresses and names by. */
export function compare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

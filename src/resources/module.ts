import { ApiError } from '../errors.js';
import { gitSourceProblem } from '../git/index.js';
import {
  defineResource,
  readOnly,
  text,
  toMany,
  toOne,
  type IntegerAttribute,
  type PendingWrite,
  type AttributeValues,
  type ResourceDeclaration,
} from '../model/index.js';
import { readModuleRepository, recordModuleVersions, type ModuleReading } from './module-versions.js';

/** Names the Terraform registry protocol accepts for a module and its provider (they are path segments). */
const registryName = /^[0-9A-Za-z](?:[0-9A-Za-z_-]{0,62}[0-9A-Za-z])?$/;

const downloads: IntegerAttribute = { kind: 'integer', default: 0, min: 0, max: 2_147_483_647, readOnly: true };

/**
 * A module of the organization's private registry: a folder of a git repository whose tags (with
 * `tagPrefix`, when set) are its versions. Publishing reads them with the linked VCS connection's
 * token or SSH key; so does every later PATCH of the module (an empty one refreshes).
 */
export const terraformModule: ResourceDeclaration = defineResource({
  type: 'module',
  table: 'module',
  parent: 'organization',
  attributes: {
    name: text({ required: true, max: 64 }),
    description: text({ max: 512 }),
    provider: text({ required: true, max: 64 }),
    source: text({ required: true, max: 2048 }),
    tagPrefix: text({ max: 128 }),
    folder: text({ max: 1024 }),
    downloadQuantity: downloads,
    // Maintained by the server: the newest version read, and `organization/name/provider`.
    latestVersion: readOnly(text({ max: 128 })),
    registryPath: readOnly(text({ max: 320 })),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
    vcs: toOne('vcs', 'vcs_id', { onDelete: 'set null' }),
    ssh: toOne('ssh', 'ssh_id', { onDelete: 'set null' }),
    version: toMany('module_version', 'module_id'),
  },
  indexes: [['name']],
  beforeWrite: checkModule,
  // The repository is read before the write's transaction, which never waits on the network.
  prepare: (write, secrets) => {
    refuseBadValues(write.values);
    return readModuleRepository(write, secrets);
  },
  afterCreate: (context, row, reading) => recordModuleVersions(context, row, terraformModule, reading as ModuleReading),
  afterUpdate: (context, row, reading) => recordModuleVersions(context, row, terraformModule, reading as ModuleReading),
});

/**
 * The registry path. The values were checked by `prepare`, which every create and update of a
 * module passes before its transaction (src/engine/write-preparation.ts).
 */
async function checkModule(write: PendingWrite): Promise<void> {
  const { values, current } = write;
  const name = values.name ?? current?.name;
  const provider = values.provider ?? current?.provider;
  const organization = await write.tenant();
  values.registryPath = `${String(organization.name)}/${String(name)}/${String(provider)}`;
}

/** Names that fit the registry protocol's paths, a source git can read, a folder inside the repository. */
function refuseBadValues(values: AttributeValues): void {
  const problems: { detail: string; attribute: string }[] = [];
  for (const name of ['name', 'provider'] as const) {
    const value = values[name];
    if (typeof value === 'string' && !registryName.test(value)) {
      problems.push({ attribute: name, detail: `${name} must be letters, digits, - and _ (at most 64), as registry addresses are.` });
    }
  }
  const source = values.source;
  const problem = typeof source === 'string' ? gitSourceProblem(source) : undefined;
  if (problem !== undefined) problems.push({ attribute: 'source', detail: `source ${problem}.` });
  const folder = values.folder;
  if (typeof folder === 'string' && folder.split('/').includes('..')) {
    problems.push({ attribute: 'folder', detail: 'folder must be a path inside the repository.' });
  }
  if (problems.length > 0) {
    throw new ApiError(
      422,
      problems.map((p) => ({ code: 'invalid_value', detail: p.detail, at: { attribute: p.attribute } })),
    );
  }
}

import { ApiError } from '../errors.js';
import { GitFailure, listTags, readTags, remoteOf, type GitTag } from '../git/index.js';
import type { PreparingWrite, ResourceDeclaration, Row, SecretReader, WriteContext } from '../model/index.js';
import { describeModule } from '../terraform/module-files.js';
import { moduleVersion } from './module-version.js';
import { ssh } from './ssh.js';
import { vcs } from './vcs.js';

/** The newest versions whose files are read (README, inputs, outputs); older ones are listed only. */
const detailedVersions = 20;

/** A tag that names a version: semantic, with an optional `v`. */
const versionTag = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

interface TaggedVersion extends GitTag {
  version: string;
}

/** What a module's repository holds: its versions, newest first, and the files of the newest ones. */
export interface ModuleReading {
  versions: TaggedVersion[];
  details: Map<string, Record<string, string>>;
}

/**
 * Reads a module's versions from its repository's tags, with the files of the newest ones, as the
 * write will leave the module (what it sends over what is stored). A repository that cannot be read
 * fails the write: 422 at `source` when the module is published or its source changes (the address
 * or the credentials are wrong), 502 when a repository read before cannot be reached now.
 */
export async function readModuleRepository(write: PreparingWrite, secrets: SecretReader): Promise<ModuleReading> {
  const { values, links, current } = write;
  const value = (name: string, column: string) => (Object.hasOwn(values, name) ? values[name] : current?.[column]);
  const link = (name: string, column: string) => (Object.hasOwn(links, name) ? links[name] : current?.[column]);
  const source = String(value('source', 'source'));
  const sourceIsNew = current === undefined || source !== current.source;
  const remote = await remoteOf(secrets, { ssh, vcs }, source, link('ssh', 'ssh_id'), link('vcs', 'vcs_id'));
  try {
    const prefix = value('tagPrefix', 'tag_prefix');
    const versions = taggedVersions(await listTags(remote), typeof prefix === 'string' ? prefix : '');
    const newest = versions.slice(0, detailedVersions);
    const folderValue = value('folder', 'folder');
    const folder = typeof folderValue === 'string' ? folderValue.replace(/^\/+|\/+$/g, '') : '';
    const details = await readTags(
      remote,
      newest.map((tag) => tag.name),
      async (tree) => {
        const found = new Map<string, Record<string, string>>();
        for (const tag of newest) {
          const names = await tree.files(tag.name, folder);
          const at = (name: string) => (folder === '' ? name : `${folder}/${name}`);
          const readme = names.find((name) => name.toLowerCase() === 'readme.md');
          const files = [];
          for (const name of names.filter((n) => n.endsWith('.tf')).slice(0, 100)) {
            const text = await tree.read(tag.name, at(name));
            if (text !== undefined) files.push({ name, text });
          }
          const described = await describeModule(files);
          found.set(tag.name, {
            readme: (readme === undefined ? undefined : await tree.read(tag.name, at(readme))) ?? '',
            inputs: JSON.stringify(described.inputs),
            outputs: JSON.stringify(described.outputs),
          });
        }
        return found;
      },
    );
    return { versions, details };
  } catch (error) {
    if (!(error instanceof GitFailure)) throw error;
    const detail = `The repository could not be read: ${error.message}.`;
    if (sourceIsNew || !error.remote) throw new ApiError(422, { code: 'invalid_value', detail, at: { attribute: 'source' } });
    throw new ApiError(502, { code: 'repository_unavailable', detail });
  }
}

/** Records a module's versions anew from what its repository held; the module's latest version follows. */
export async function recordModuleVersions(
  context: WriteContext,
  module: Row,
  resource: ResourceDeclaration,
  reading: ModuleReading,
): Promise<void> {
  const id = String(module.id);
  // Versions a client added by hand name no tag, and stay.
  await context.removeChildren(moduleVersion, id, (row) => row.git_tag === null);
  for (const tag of reading.versions) {
    await context.insert(moduleVersion, id, {
      version: tag.version,
      gitTag: tag.name,
      commit: tag.commit,
      ...reading.details.get(tag.name),
    });
  }
  await context.set(resource, id, { latestVersion: reading.versions[0]?.version ?? null });
}

/** The tags with the prefix that name versions, newest first (releases before pre-releases of the same number). */
export function taggedVersions(tags: readonly GitTag[], prefix: string): TaggedVersion[] {
  const found: TaggedVersion[] = [];
  for (const tag of tags) {
    if (!tag.name.startsWith(prefix)) continue;
    const rest = tag.name.slice(prefix.length);
    if (versionTag.test(rest)) found.push({ ...tag, version: rest.replace(/^v/, '') });
  }
  return found.sort((a, b) => compareVersions(b.version, a.version));
}

/** Semantic version order: numbers by value, a pre-release before its release. */
export function compareVersions(a: string, b: string): number {
  const [coreA = '', preA] = a.split(/-(.*)/s);
  const [coreB = '', preB] = b.split(/-(.*)/s);
  const numbers = (core: string) => core.split('+')[0]?.split('.').map(Number) ?? [];
  const [x, y] = [numbers(coreA), numbers(coreB)];
  for (let i = 0; i < 3; i++) {
    const difference = (x[i] ?? 0) - (y[i] ?? 0);
    if (difference !== 0) return difference;
  }
  if (preA === undefined || preB === undefined) return preA === preB ? 0 : preA === undefined ? 1 : -1;
  return preA < preB ? -1 : preA > preB ? 1 : 0;
}

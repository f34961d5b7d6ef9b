import { ApiError } from '../errors.js';
import { GitFailure, listTags, readTags, type GitCredential, type GitRemote, type GitTag } from '../git/index.js';
import type { ResourceDeclaration, Row, WriteContext } from '../model/index.js';
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

/**
 * Reads a module's versions from its repository's tags and records them anew, with the files of
 * the newest ones; the module's latest version follows. A repository that cannot be read fails the
 * write: 422 at `source` when the module is published or its source changes (the address or the
 * credentials are wrong), 502 when a repository read before cannot be reached now.
 */
export async function readModuleVersions(
  context: WriteContext,
  module: Row,
  resource: ResourceDeclaration,
  sourceIsNew: boolean,
): Promise<void> {
  const remote = await remoteOf(context, module);
  try {
    const prefix = typeof module.tag_prefix === 'string' ? module.tag_prefix : '';
    const versions = taggedVersions(await listTags(remote), prefix);
    const newest = versions.slice(0, detailedVersions);
    const folder = typeof module.folder === 'string' ? module.folder.replace(/^\/+|\/+$/g, '') : '';
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
    const id = String(module.id);
    // Versions a client added by hand name no tag, and stay.
    await context.removeChildren(moduleVersion, id, (row) => row.git_tag === null);
    for (const tag of versions) {
      await context.insert(moduleVersion, id, { version: tag.version, gitTag: tag.name, commit: tag.commit, ...details.get(tag.name) });
    }
    await context.set(resource, id, { latestVersion: versions[0]?.version ?? null });
  } catch (error) {
    if (!(error instanceof GitFailure)) throw error;
    const detail = `The repository could not be read: ${error.message}.`;
    if (sourceIsNew || !error.remote) throw new ApiError(422, { code: 'invalid_value', detail, at: { attribute: 'source' } });
    throw new ApiError(502, { code: 'repository_unavailable', detail });
  }
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

/** The module's repository and the credential of the VCS connection or SSH key it links. */
async function remoteOf(context: WriteContext, module: Row): Promise<GitRemote> {
  const url = String(module.source);
  if (typeof module.ssh_id === 'string') {
    const key = await context.withSecrets(ssh, module.ssh_id);
    if (typeof key?.private_key === 'string') return { url, credential: { kind: 'key', privateKey: key.private_key } };
  }
  if (typeof module.vcs_id === 'string') {
    const connection = await context.withSecrets(vcs, module.vcs_id);
    const token = connection?.access_token;
    if (typeof token === 'string' && token !== '') return { url, credential: tokenCredential(String(connection?.vcs_type), token) };
  }
  return { url };
}

/** The user name each vendor expects beside a token in HTTP basic authentication. */
function tokenCredential(vcsType: string, token: string): GitCredential {
  const username = vcsType === 'GITLAB' ? 'oauth2' : vcsType === 'BITBUCKET' ? 'x-token-auth' : 'x-access-token';
  return { kind: 'token', username, token };
}

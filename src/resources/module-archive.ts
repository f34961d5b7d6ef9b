import { ApiError } from '../errors.js';
import { GitFailure, readTags } from '../git/index.js';
import type { Row, SecretReader } from '../model/index.js';
import { remoteOf } from '../git/index.js';
import { ssh } from './ssh.js';
import { vcs } from './vcs.js';

/**
 * A module version's files as a zip: the module's folder at the version's tag, its files at the
 * top of the archive, read from the repository with the module's SSH key or VCS connection token.
 * Built on each request and kept nowhere. When the version recorded what its tag named, the tag
 * must name it still: a tag moved since is a 409 rather than other code under the same version.
 */
export async function moduleArchive(module: Row, version: Row, secrets: SecretReader): Promise<Buffer> {
  const remote = await remoteOf(secrets, { ssh, vcs }, String(module.source), module.ssh_id, module.vcs_id);
  const tag =
    typeof version.git_tag === 'string'
      ? version.git_tag
      : `${typeof module.tag_prefix === 'string' ? module.tag_prefix : ''}${String(version.version)}`;
  const folder = typeof module.folder === 'string' ? module.folder.replace(/^\/+|\/+$/g, '') : '';
  try {
    return await readTags(remote, [tag], async (tree) => {
      const recorded = version.commit;
      if (typeof recorded === 'string' && recorded !== '') {
        const now = await tree.target(tag);
        if (now !== recorded) {
          throw new ApiError(409, {
            code: 'module_version_moved',
            detail: `The tag ${tag} now names ${now.slice(0, 12)}, not ${recorded.slice(0, 12)}, which version ${String(version.version)} was read from: refresh the module (an empty PATCH) to read its versions again.`,
          });
        }
      }
      if (folder !== '' && (await tree.files(tag, folder)).length === 0) {
        throw new ApiError(404, { code: 'not_found', detail: `The tag ${tag} has no folder ${folder}.` });
      }
      return tree.archive(tag, folder);
    });
  } catch (error) {
    if (!(error instanceof GitFailure)) throw error;
    throw new ApiError(502, { code: 'repository_unavailable', detail: `The module's repository could not be read: ${error.message}.` });
  }
}

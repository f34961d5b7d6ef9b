/**
 * Reading remote git repositories with the machine's `git`: their tags, and the files at a tag.
 * Independent of what is read: modules of the registry, and the workspace sources runs check out.
 */
export { checkout, refNameProblem } from './checkout.js';
export { GitFailure } from './git-command.js';
export { allowGitDestinations } from './git-destinations.js';
export {
  defaultGitLimits,
  gitSourceProblem,
  gitSourceRefusal,
  listTags,
  readTags,
  type GitCredential,
  type GitLimits,
  type GitRemote,
  type GitTag,
  type TagTree,
} from './remote.js';
export { remoteOf, type CredentialRecords } from './vcs-credentials.js';

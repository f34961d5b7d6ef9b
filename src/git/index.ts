/**
 * Reading remote git repositories with the machine's `git`: their tags, and the files at a tag.
 * Independent of what is read: modules of the registry today, workspace sources later.
 */
export { GitFailure } from './git-command.js';
export {
  defaultGitLimits,
  gitSourceProblem,
  listTags,
  readTags,
  type GitCredential,
  type GitLimits,
  type GitRemote,
  type GitTag,
  type TagTree,
} from './remote.js';

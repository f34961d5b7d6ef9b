import { defineResource, text, toOne } from '../model/index.js';

/**
 * A tag attached to a workspace. Terrakube names the type `workspacetag`, lists these records at the
 * workspace's `workspaceTag` path, and its web UI sends and reads the tag as the attribute `tagId`:
 * here that attribute is the `tag` link itself, so it must name a tag of the workspace's
 * organization, and the record goes with its tag.
 */
export const workspaceTag = defineResource({
  type: 'workspacetag',
  table: 'workspace_tag',
  parent: 'workspace',
  attributes: {
    tagId: text({ required: true, max: 128 }),
  },
  relationships: {
    workspace: toOne('workspace', 'workspace_id'),
    tag: toOne('tag', 'tag_id', { attribute: 'tagId' }),
  },
  unique: ['tagId'],
});

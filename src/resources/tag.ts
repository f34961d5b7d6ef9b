import { defineResource, text, toMany, toOne } from '../model/index.js';

/** A label of an organization, attached to workspaces through workspace tags. */
export const tag = defineResource({
  type: 'tag',
  table: 'tag',
  parent: 'organization',
  attributes: {
    name: text({ required: true, max: 128 }),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
    // Deleting a tag detaches it from every workspace.
    workspaceTag: toMany('workspacetag', 'tag_id'),
  },
  unique: ['name'],
});

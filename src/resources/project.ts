import { defineResource, text, toMany, toOne } from '../model/index.js';

/** A group of an organization's workspaces; a workspace belongs to one project at most. */
export const project = defineResource({
  type: 'project',
  table: 'project',
  parent: 'organization',
  attributes: {
    name: text({ required: true, max: 128 }),
    description: text({ max: 512 }),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
    // Deleting a project takes its workspaces out of it (see the workspace's link).
    workspace: toMany('workspace', 'project_id'),
  },
  unique: ['name'],
});

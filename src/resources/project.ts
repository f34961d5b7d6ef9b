import { defineResource, text, toMany, toOne } from '../model/index.js';

/**
 * A group of an organization's workspaces; a workspace belongs to one project at most, and a team's
 * grant on the project (`projectAccess`) covers the workspaces in it.
 */
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
    // The teams granted access to the project's workspaces; Terrakube lists them at `projectAccess`.
    projectAccess: toMany('project_access', 'project_id'),
  },
  unique: ['name'],
});

import { defineResource, toOne } from '../model/index.js';
import { grantAttributes, grantRules } from './access.js';

/**
 * Terrakube's project team access: a grant, as a workspace's `access`, on every workspace of the
 * project while it is in the project (and on the project record). Terrakube names the type
 * `project_access` and lists these records at the project's `projectAccess` path.
 */
export const projectAccess = defineResource({
  type: 'project_access',
  table: 'project_access',
  parent: 'project',
  attributes: grantAttributes,
  relationships: {
    project: toOne('project', 'project_id'),
  },
  unique: ['name'],
  grant: grantRules([{ type: 'workspace', through: 'project' }]),
});

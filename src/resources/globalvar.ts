import { defineResource, toOne } from '../model/index.js';
import { checkEnvironmentKey, keyValueAttributes } from './key-value.js';

/**
 * A variable of every workspace of an organization, with the rules and secrecy of a workspace
 * variable. A workspace's own variable of the same key and category wins over it, and it wins
 * over the collections the workspace uses (see the README).
 */
export const globalvar = defineResource({
  type: 'globalvar',
  table: 'globalvar',
  parent: 'organization',
  attributes: keyValueAttributes,
  relationships: {
    organization: toOne('organization', 'organization_id'),
  },
  unique: ['key'],
  beforeWrite: checkEnvironmentKey,
});

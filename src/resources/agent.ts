import { defineResource, text, toOne } from '../model/index.js';

/** A pool of job executors of an organization, reached at its URL; a workspace may run its jobs there. */
export const agent = defineResource({
  type: 'agent',
  table: 'agent',
  parent: 'organization',
  attributes: {
    name: text({ required: true, max: 128 }),
    description: text({ max: 512 }),
    url: text({ required: true, max: 2048 }),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
  },
});

import { defineResource, integer, text, toMany, toOne } from '../model/index.js';

/** A named set of items that workspaces share through references; higher priority wins a key. */
export const collection = defineResource({
  type: 'collection',
  table: 'collection',
  parent: 'organization',
  attributes: {
    name: text({ required: true, max: 128 }),
    description: text({ max: 512 }),
    priority: integer(0, -2147483648, 2147483647),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
    item: toMany('item', 'collection_id'),
    reference: toMany('reference', 'collection_id'),
  },
  unique: ['name'],
});

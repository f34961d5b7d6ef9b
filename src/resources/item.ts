import { defineResource, toOne } from '../model/index.js';
import { checkEnvironmentKey, keyValueAttributes } from './key-value.js';

export const item = defineResource({
  type: 'item',
  table: 'item',
  parent: 'collection',
  attributes: keyValueAttributes,
  relationships: {
    collection: toOne('collection', 'collection_id'),
  },
  unique: ['key'],
  // A collection or workspace may hold many thousands: recent changes first, and a category and key prefix.
  indexes: [['updatedDate'], ['category', 'key']],
  beforeWrite: checkEnvironmentKey,
});

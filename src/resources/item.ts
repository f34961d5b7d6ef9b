import { defineResource, toOne } from '../engine/declaration.js';
import { checkEnvironmentKey, keyValueAttributes } from './key-value.js';

export const item = defineResource({
  type: 'item',
  table: 'item',
  parent: { type: 'collection', relationship: 'collection' },
  attributes: keyValueAttributes,
  relationships: {
    collection: toOne('collection', 'collection_id'),
  },
  write: { capability: 'manageCollection' },
  beforeWrite: checkEnvironmentKey,
});

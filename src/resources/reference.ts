import { defineResource, text, toOne } from '../model/index.js';

/** Attaches a collection to a workspace of the same organization; it goes with either. */
export const reference = defineResource({
  type: 'reference',
  table: 'reference',
  parent: 'collection',
  // The Terraform provider reads, updates and deletes references at /api/v1/reference/{id}.
  atRoot: ['read', 'update', 'delete'],
  attributes: {
    description: text({ max: 512 }),
  },
  relationships: {
    collection: toOne('collection', 'collection_id'),
    workspace: toOne('workspace', 'workspace_id', { required: true }),
  },
});

import { allOperations, defineResource, text, toOne } from '../engine/declaration.js';

/** Attaches a collection to a workspace of the same organization. */
export const reference = defineResource({
  type: 'reference',
  table: 'reference',
  parent: { type: 'collection', relationship: 'collection' },
  // The Terraform provider reads, updates and deletes references at /api/v1/reference/{id}.
  atRoot: allOperations.filter((o) => o === 'read' || o === 'update' || o === 'delete'),
  attributes: {
    description: text({ max: 512 }),
  },
  relationships: {
    collection: toOne('collection', 'collection_id'),
    workspace: toOne('workspace', 'workspace_id', { owner: true, required: true }),
  },
  write: { capability: 'manageCollection' },
});

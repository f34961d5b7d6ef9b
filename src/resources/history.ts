import { defineResource, integer, readOnly, text, toOne, type StateRecords, readOperations } from '../model/index.js';

/**
 * One version of a workspace's state, as Terraform's http backend wrote it (Terrakube's `history`):
 * its serial, lineage and MD5, the job that wrote it, and `output`, the URL of the state's JSON
 * that the web UI's States tab reads. The state itself is stored apart, sealed, and never in an
 * answer; these records are written by the state backend alone.
 */
export const history = defineResource({
  type: 'history',
  table: 'history',
  parent: 'workspace',
  // Written by the state backend alone: listed and read through the API, never written.
  operations: readOperations,
  attributes: {
    jobReference: readOnly(text({ max: 128 })),
    output: readOnly(text({ max: 2048 })),
    serial: { ...integer(0, 0, 2_147_483_647), readOnly: true },
    md5: readOnly(text({ max: 64 })),
    lineage: readOnly(text({ max: 128 })),
  },
  relationships: {
    workspace: toOne('workspace', 'workspace_id'),
  },
  indexes: [['serial']],
});

/** What the state backend reads and writes. */
export const stateRecords: StateRecords = { workspace: 'workspace', history: 'history', job: 'job', capability: 'manageState' };

import { defineResource, integer, oneOf, readOnly, text, toOne, readOperations } from '../model/index.js';
import { runStatuses, status } from '../runs/index.js';

/**
 * One step of a job, made from its template's flow when the job is created (Terrakube's `step`):
 * its number and name from the flow, its status as it runs, and `output`, where its log will be
 * read. Clients only read steps; the server makes and changes them.
 */
export const step = defineResource({
  type: 'step',
  table: 'step',
  parent: 'job',
  operations: readOperations,
  attributes: {
    stepNumber: readOnly(integer(0, 0, Number.MAX_SAFE_INTEGER)),
    name: readOnly(text({ max: 256 })),
    status: readOnly(oneOf(runStatuses, { default: status.pending })),
    output: readOnly(text({ max: 2048 })),
  },
  relationships: {
    job: toOne('job', 'job_id'),
  },
});

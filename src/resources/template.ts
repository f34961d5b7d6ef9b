import { invalidValue } from '../errors.js';
import { defineResource, text, toOne, type PendingWrite } from '../model/index.js';
import { refusedFlowField } from '../runs/index.js';

const maxTemplateBytes = 256 * 1024;

export const template = defineResource({
  type: 'template',
  table: 'template',
  parent: 'organization',
  // Terrakube's "team view template": a team granted access to a workspace picks its runs' templates.
  readByGrantHolders: true,
  attributes: {
    name: text({ required: true, max: 128 }),
    description: text({ max: 512 }),
    version: text({ max: 128 }),
    // By convention base64 of a YAML flow; stored and returned byte for byte, read here only for
    // the fields Stratum refuses to run (a flow wrong otherwise is stored, as Terrakube stores it).
    tcl: text({ required: true, max: maxTemplateBytes, maxBytes: maxTemplateBytes }),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
  },
  beforeWrite: refuseUnrunFields,
});

/** A flow that asks for what Stratum would not do is refused when saved, not found out when it runs. */
function refuseUnrunFields(write: PendingWrite): void {
  const { tcl } = write.values;
  if (typeof tcl !== 'string') return;
  const problem = refusedFlowField(tcl);
  if (problem !== undefined) throw invalidValue(problem, { attribute: 'tcl' });
}

import { invalidValue } from '../errors.js';
import { defineResource, text, toOne, type PendingWrite } from '../model/index.js';
import { flowFaultAtSave } from '../runs/index.js';

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
    // By convention base64 of a YAML flow; stored and returned byte for byte. Text that is one is
    // checked when saved (checkFlow); any other text is stored as given, as the interface allows.
    tcl: text({ required: true, max: maxTemplateBytes, maxBytes: maxTemplateBytes }),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
  },
  beforeWrite: checkFlow,
});

/**
 * A flow its jobs could not run is refused when saved, naming the line and the problem, rather
 * than found out when a job fails at start. A value an update sends back as stored is not checked
 * again, so a template saved before this rule keeps its page (its jobs still say why they fail).
 */
function checkFlow(write: PendingWrite): void {
  const { tcl } = write.values;
  if (typeof tcl !== 'string' || (write.current !== undefined && write.current.tcl === tcl)) return;
  const fault = flowFaultAtSave(tcl);
  if (fault !== undefined)
    throw invalidValue(fault.line === undefined ? fault.problem : `Line ${fault.line}: ${fault.problem}`, { attribute: 'tcl' });
}

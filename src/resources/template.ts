import { defineResource, text, toOne } from '../model/index.js';

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
    // By convention base64 of a YAML flow; stored and returned byte for byte, never interpreted here.
    tcl: text({ required: true, max: maxTemplateBytes, maxBytes: maxTemplateBytes }),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
  },
});

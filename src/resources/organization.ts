import { defineResource, flag, oneOf, text, toMany } from '../engine/declaration.js';
import { insertDefaultTemplates } from './default-templates.js';

export const organization = defineResource({
  type: 'organization',
  table: 'organization',
  attributes: {
    name: text({ required: true, max: 128 }),
    description: text({ max: 512 }),
    executionMode: oneOf(['remote', 'local'], { default: 'remote' }),
    icon: text({ max: 512 }),
    // Existing clients delete an organization by PATCHing disabled: true.
    disabled: flag(false),
  },
  relationships: {
    template: toMany('template', 'organization_id'),
    collection: toMany('collection', 'organization_id'),
    workspace: toMany('workspace', 'organization_id'),
    vcs: toMany('vcs', 'organization_id'),
    team: toMany('team', 'organization_id'),
  },
  softDelete: 'disabled',
  write: { administratorOnly: true },
  afterCreate: insertDefaultTemplates,
});

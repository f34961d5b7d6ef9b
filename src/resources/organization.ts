import { defineResource, flag, oneOf, text, toMany } from '../model/index.js';
import { insertDefaultTemplates } from './default-templates.js';

/** The tenant: everything else lives in one organization, and teams grant access to it. */
export const organization = defineResource({
  type: 'organization',
  table: 'organization',
  tenant: true,
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
    project: toMany('project', 'organization_id'),
    tag: toMany('tag', 'organization_id'),
    globalvar: toMany('globalvar', 'organization_id'),
    ssh: toMany('ssh', 'organization_id'),
    agent: toMany('agent', 'organization_id'),
    notificationConfiguration: toMany('notification_configuration', 'organization_id'),
    module: toMany('module', 'organization_id'),
    provider: toMany('provider', 'organization_id'),
    job: toMany('job', 'organization_id'),
    auditEvent: toMany('audit_event', 'organization_id'),
  },
  softDelete: 'disabled',
  unique: ['name'],
  afterCreate: insertDefaultTemplates,
});

import { defineResource, oneOf, text, toMany, toOne } from '../model/index.js';

const credential = () => text({ max: 16384, secret: { always: true } });

/** A connection to a version control system, which workspaces link to fetch their code. */
export const vcs = defineResource({
  type: 'vcs',
  table: 'vcs',
  parent: 'organization',
  attributes: {
    name: text({ required: true, max: 128 }),
    description: text({ max: 512 }),
    vcsType: oneOf(['GITHUB', 'GITLAB', 'BITBUCKET', 'AZURE_DEVOPS', 'AZURE_SP_MI', 'PUBLIC'], { required: true }),
    connectionType: oneOf(['OAUTH', 'STANDALONE'], { default: 'OAUTH' }),
    clientId: text({ max: 512 }),
    clientSecret: credential(),
    privateKey: credential(),
    accessToken: credential(),
    endpoint: text({ max: 2048 }),
    apiUrl: text({ max: 2048 }),
    callback: text({ max: 512 }),
    redirectUrl: text({ max: 2048 }),
    // The Terraform provider plans this value itself and fails unless it is echoed.
    status: oneOf(['PENDING', 'COMPLETED', 'ERROR'], { default: 'PENDING' }),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
    workspace: toMany('workspace', 'vcs_id'),
  },
});

import { defineResource, oneOf, text, toOne } from '../model/index.js';

/** A private SSH key of an organization, for workspaces whose repository or modules are fetched over SSH. */
export const ssh = defineResource({
  type: 'ssh',
  table: 'ssh',
  parent: 'organization',
  attributes: {
    name: text({ required: true, max: 128 }),
    description: text({ max: 512 }),
    // Write-only: the job engine reads it, no client ever does.
    privateKey: text({ required: true, max: 16384, secret: { always: true } }),
    // The key file the job engine writes it to (id_rsa, id_ed25519).
    sshType: oneOf(['rsa', 'ed25519'], { required: true }),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
  },
});

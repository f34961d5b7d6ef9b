import { defineResource, flag, text, toMany, toOne } from '../model/index.js';

/**
 * A provider of the organization's private registry (Terrakube's `provider`): its versions and
 * their builds per platform are records clients write; the providers.v1 protocol answers from them.
 */
export const provider = defineResource({
  type: 'provider',
  table: 'provider',
  parent: 'organization',
  attributes: {
    name: text({ required: true, max: 64 }),
    description: text({ max: 512 }),
    // Set by Terrakube's import from the public registry, which Stratum does not do: kept as sent.
    imported: flag(false),
    registryNamespace: text({ max: 128 }),
  },
  relationships: {
    organization: toOne('organization', 'organization_id'),
    version: toMany('version', 'provider_id'),
  },
  indexes: [['name']],
});

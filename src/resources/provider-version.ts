import { defineResource, text, toMany, toOne } from '../model/index.js';

/** One version of a provider and the plugin protocols it speaks (`5.0,6.0`). */
export const providerVersion = defineResource({
  type: 'version',
  table: 'provider_version',
  parent: 'provider',
  attributes: {
    versionNumber: text({ required: true, max: 128 }),
    protocols: text({ max: 128, default: '5.0' }),
  },
  relationships: {
    provider: toOne('provider', 'provider_id'),
    implementation: toMany('implementation', 'version_id'),
  },
  indexes: [['versionNumber']],
});

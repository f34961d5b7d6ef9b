import { defineResource, text, toOne } from '../model/index.js';

/**
 * One version of a module: a tag of its repository, read when the module is published or changed
 * (Terrakube's `module_version`). Beside Terrakube's attributes, what its files at the tag say: the
 * README, and the inputs and outputs of its `.tf` files as JSON lists.
 */
export const moduleVersion = defineResource({
  type: 'module_version',
  table: 'module_version',
  parent: 'module',
  attributes: {
    version: text({ required: true, max: 128 }),
    gitTag: text({ max: 256 }),
    commit: text({ max: 64 }),
    readme: text({ max: 1024 * 1024, maxBytes: 1024 * 1024 }),
    inputs: text({ max: 1024 * 1024, maxBytes: 1024 * 1024 }),
    outputs: text({ max: 1024 * 1024, maxBytes: 1024 * 1024 }),
  },
  relationships: {
    module: toOne('module', 'module_id'),
  },
  indexes: [['version']],
});

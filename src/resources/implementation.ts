import { defineResource, text, toOne } from '../model/index.js';

const url = () => text({ required: true, max: 2048 });

/** A build of a provider version for one platform, with what Terraform checks it against. */
export const implementation = defineResource({
  type: 'implementation',
  table: 'implementation',
  parent: 'version',
  attributes: {
    os: text({ required: true, max: 32 }),
    arch: text({ required: true, max: 32 }),
    filename: text({ required: true, max: 512 }),
    downloadUrl: url(),
    shasumsUrl: url(),
    shasumsSignatureUrl: url(),
    shasum: text({ required: true, max: 128 }),
    keyId: text({ max: 64 }),
    asciiArmor: text({ max: 65536 }),
    trustSignature: text({ max: 65536 }),
    source: text({ max: 256 }),
    sourceUrl: text({ max: 2048 }),
  },
  relationships: {
    version: toOne('version', 'version_id'),
  },
});

import type { RegistryRecords } from '../model/index.js';
import { moduleArchive } from './module-archive.js';

/** The records the Terraform registry protocols answer from (`/terraform/modules/v1`, `/terraform/providers/v1`). */
export const registryRecords: RegistryRecords = {
  namespace: 'organization',
  module: 'module',
  moduleVersion: 'module_version',
  provider: 'provider',
  providerVersion: 'version',
  implementation: 'implementation',
  lookup: { moduleProvider: 'provider', moduleVersion: 'version', providerVersion: 'versionNumber', moduleDownloads: 'downloadQuantity' },
  archive: moduleArchive,
};

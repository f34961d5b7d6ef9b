import type { ResourceDeclaration, Resources } from '../engine/declaration.js';
import { collection } from './collection.js';
import { item } from './item.js';
import { organization } from './organization.js';
import { reference } from './reference.js';
import { team } from './team.js';
import { template } from './template.js';
import { variable } from './variable.js';
import { vcs } from './vcs.js';
import { workspace } from './workspace.js';

/** Every resource the API serves. */
export const resources: Resources = new Map<string, ResourceDeclaration>(
  [organization, template, collection, item, reference, workspace, variable, vcs, team].map((r) => [r.type, r]),
);

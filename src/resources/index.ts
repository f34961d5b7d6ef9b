import type { ResourceDeclaration, Resources } from '../engine/declaration.js';
import { organization } from './organization.js';
import { template } from './template.js';

/** Every resource the API serves. */
export const resources: Resources = new Map<string, ResourceDeclaration>([organization, template].map((r) => [r.type, r]));

import { badRequest } from '../../errors.js';
import type { ArrivalStep } from './arrival.js';

/**
 * A NUL character in a path or query parameter would reach SQL, where PostgreSQL refuses it (and
 * SQLite accepts it): one check at the edge makes both stores answer the same 400. Request bodies
 * are checked field by field, where the answer can point at the field.
 */
export const refuseNulInUrl: ArrivalStep = (request) =>
  request.url.includes('%00')
    ? badRequest('invalid_character', 'The URL holds a NUL character (%00), which no path segment or query parameter may contain.')
    : undefined;

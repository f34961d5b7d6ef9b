import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { badRequest } from '../errors.js';

/**
 * A NUL character in a path or query parameter would reach SQL, where PostgreSQL refuses it (and
 * SQLite accepts it): one check at the edge makes both stores answer the same 400. Request bodies
 * are checked field by field, where the answer can point at the field.
 */
export const urlCheck = fp(
  (app: FastifyInstance) => {
    app.addHook('onRequest', (request, _reply, done) => {
      if (/%00/.test(request.url)) {
        done(badRequest('invalid_character', 'The URL holds a NUL character (%00), which no path segment or query parameter may contain.'));
        return;
      }
      done();
    });
  },
  { name: 'url-check', dependencies: ['error-rendering'] },
);

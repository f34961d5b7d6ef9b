import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { badRequest } from '../../errors.js';

/**
 * Request bodies are JSON, sent as `application/vnd.api+json` or `application/json`; anything else
 * is a 415. A malformed body is a 400 that never quotes the body back (it may hold a secret).
 */
export const bodyParsing = fp(
  (app: FastifyInstance) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(['application/vnd.api+json', 'application/json'], { parseAs: 'string' }, (_request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      // A DELETE or GET that carries a Content-Type and no body is fine; an empty write is caught later.
      if (text.trim() === '') {
        done(null, undefined);
        return;
      }
      try {
        done(null, JSON.parse(text));
      } catch (error) {
        // The parser's message quotes the text around the fault: keep only the position.
        const position = error instanceof Error ? /position (\d+)/.exec(error.message)?.[1] : undefined;
        done(
          badRequest('malformed_json', `The request body is not valid JSON${position === undefined ? '' : ` (at position ${position})`}.`),
        );
      }
    });
  },
  { name: 'body-parsing' },
);

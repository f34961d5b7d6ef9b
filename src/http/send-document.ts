import type { FastifyReply } from 'fastify';
import { mediaType } from '../jsonapi/document.js';

/**
 * Sends a JSON:API document. As bytes, because Fastify appends `; charset=utf-8` to JSON text
 * bodies and JSON:API forbids media type parameters other than ext and profile.
 */
export function sendDocument(reply: FastifyReply, status: number, document: unknown): FastifyReply {
  return reply
    .code(status)
    .header('content-type', mediaType)
    .send(Buffer.from(JSON.stringify(document)));
}

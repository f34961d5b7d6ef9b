import type { FastifyReply } from 'fastify';
import { mediaType } from '../../jsonapi/document.js';

/** Text already serialized, passed through as it is. */
const asIs = (text: string): string => text;

/**
 * Sends a JSON:API document. Its text goes through a serializer that leaves it as it is, because
 * Fastify appends `; charset=utf-8` to JSON text bodies otherwise, and JSON:API forbids media type
 * parameters other than ext and profile. (Sent as a Buffer, the body cost a copy, and a second
 * write beside the headers.)
 */
export function sendDocument(reply: FastifyReply, status: number, document: unknown): FastifyReply {
  return reply.code(status).header('content-type', mediaType).serializer(asIs).send(JSON.stringify(document));
}

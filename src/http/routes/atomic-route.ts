import type { FastifyInstance } from 'fastify';
import type { AtomicOperations } from '../../jsonapi/atomic.js';
import { apiPrefix } from '../../jsonapi/routes.js';
import type { Engine } from '../../engine/index.js';
import { jsonApiMediaTypes } from './media-types.js';
import { sessionOf } from './request-session.js';

/** Where JSON:API atomic operations are posted, as Terrakube's web UI posts them. */
export const atomicOperationsPath = `${apiPrefix}/operations`;

/** `POST /api/v1/operations`: a batch of operations in one transaction (jsonapi/atomic.ts). */
export function atomicRoute(api: FastifyInstance, { engine, atomic }: { engine: Engine; atomic: AtomicOperations }): Promise<void> {
  api.post(atomicOperationsPath, { preParsing: jsonApiMediaTypes('atomic') }, async (request, reply) => {
    const response = await atomic.serve(sessionOf(engine, request, reply), request.body);
    // As bytes, so that the content type keeps its ext parameter and gets no charset.
    return reply
      .code(response.status)
      .headers(response.headers ?? {})
      .send(Buffer.from(JSON.stringify(response.body)));
  });
  return Promise.resolve();
}

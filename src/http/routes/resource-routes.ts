import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../../engine/index.js';
import { handle, type JsonApiRequest, type JsonApiResponse } from '../../jsonapi/handlers.js';
import type { Route } from '../../jsonapi/routes.js';
import { headerOf, jsonApiMediaTypes } from './media-types.js';
import { sessionOf } from './request-session.js';
import { sendDocument } from '../plugins/send-document.js';

/** The JSON:API routes derived from the declarations, each served by the engine. */
export function resourceRoutes(api: FastifyInstance, { engine, routes }: { engine: Engine; routes: readonly Route[] }): Promise<void> {
  for (const route of routes) {
    api.route({
      method: route.method,
      url: route.path,
      preParsing: jsonApiMediaTypes('resource'),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const response = await handle(sessionOf(engine, request, reply), engine.registry, route, jsonApiRequest(request));
        return send(reply, response);
      },
    });
  }
  return Promise.resolve();
}

function jsonApiRequest(request: FastifyRequest): JsonApiRequest {
  return {
    params: request.params as Record<string, string>,
    query: request.query as Record<string, string | string[] | undefined>,
    body: request.body,
    ifMatch: headerOf(request, 'if-match'),
    ifNoneMatch: headerOf(request, 'if-none-match'),
    path: request.url.split('?')[0] ?? request.url,
  };
}

function send(reply: FastifyReply, response: JsonApiResponse): FastifyReply {
  reply.code(response.status);
  for (const [name, value] of Object.entries(response.headers ?? {})) reply.header(name, value);
  if (response.body === undefined) return reply.send();
  return sendDocument(reply, response.status, response.body);
}

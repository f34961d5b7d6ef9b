import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiErrorObjects } from '../graphql/errors.js';
import { answerGraphQL, type GraphQLService } from '../graphql/run.js';
import type { Logger } from '../log.js';
import { requireCaller } from './authentication.js';
import { describeError, toApiError } from './error-rendering.js';

/** Where Terrakube's clients find Elide's GraphQL endpoint. */
export const graphqlPath = '/graphql/api/v1';

/**
 * GraphQL over HTTP, as Elide serves it: `POST` a JSON body `{query, variables, operationName}`,
 * answered `application/json`, 200 with `data` and `errors` whatever happened inside the query. A
 * request that never reaches GraphQL (no or a bad token, a body over 1 MiB or not JSON, not an
 * object with a query) keeps its HTTP status, and its error has the same GraphQL shape. Mounted
 * behind the authentication of the API routes, in a scope of its own for its error rendering.
 */
export function graphqlRoute(api: FastifyInstance, { service, log }: { service: GraphQLService; log: Logger }): Promise<void> {
  const unexpected = (error: Error) => {
    log.error({ error: describeError(error), path: graphqlPath }, 'request failed');
  };
  api.setErrorHandler((error: FastifyError | Error, _request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500 && apiError.status !== 503) unexpected(error);
    return send(reply.headers(apiError.headers), apiError.status, { errors: apiErrorObjects(apiError) });
  });
  api.post(graphqlPath, async (request, reply) => {
    const answer = await answerGraphQL(service, requireCaller(request), request.body, unexpected);
    // Sent or abandoned, the answer no longer holds its memory.
    reply.raw.once('close', answer.release);
    return send(reply, 200, answer.body);
  });
  return Promise.resolve();
}

function send(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').send(JSON.stringify(body));
}

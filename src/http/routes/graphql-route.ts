import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../../engine/index.js';
import type { GraphQLErrorObject } from '../../graphql/errors.js';
import type { GraphQLService } from '../../graphql/run.js';
import type { Logger } from '../../log.js';
import type { UnmodeledRecord } from '../../model/index.js';
import { adviceHeaders, describeError, toApiError } from '../plugins/error-rendering.js';
import { noteFailure, noteGraphQLErrors } from '../plugins/request-log.js';
import { jsonBody } from '../plugins/streamed-json.js';
import { sessionOf } from './request-session.js';

/** Where Terrakube's clients find Elide's GraphQL endpoint. */
export const graphqlPath = '/graphql/api/v1';

/**
 * GraphQL over HTTP, as Elide serves it: `POST` a JSON body `{query, variables, operationName}`,
 * answered `application/json`, 200 with `data` and `errors` whatever happened inside the query. A
 * request that never reaches GraphQL (no or a bad token, a body over 1 MiB or not JSON, not an
 * object with a query) keeps its HTTP status, and its error has the same GraphQL shape. The codes
 * of an answer's errors go to the request's log line and the metrics, since its status does not
 * tell them. Mounted behind the authentication of the API routes, in a scope of its own for its
 * error rendering.
 */
export function graphqlRoute(
  api: FastifyInstance,
  { engine, unmodeled, log }: { engine: Engine; unmodeled: Readonly<Record<string, UnmodeledRecord>>; log: Logger },
): Promise<void> {
  const unexpectedIn = (request: FastifyRequest) => (error: Error) => {
    log.error({ reqId: request.id, error: describeError(error), path: graphqlPath }, 'request failed');
  };
  // GraphQL (the library, and the schema generated from the declarations) loads with the first
  // GraphQL request: loading it took a tenth of the service's start, which most clients never use.
  let loading:
    | undefined
    | Promise<{
        service: GraphQLService;
        graphql: typeof import('../../graphql/run.js');
        errors: typeof import('../../graphql/errors.js');
      }>;
  const load = () =>
    (loading ??= Promise.all([import('../../graphql/run.js'), import('../../graphql/errors.js')]).then(([graphql, errors]) => ({
      service: graphql.graphqlService(engine.registry, unmodeled),
      graphql,
      errors,
    })));
  api.setErrorHandler(async (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    noteFailure(request, apiError);
    if (apiError.status >= 500 && apiError.status !== 503) unexpectedIn(request)(error);
    const { errors } = await load();
    const body = { errors: errors.apiErrorObjects(apiError) };
    noteGraphQLErrors(request, codesOf(body.errors));
    return send(reply.headers(adviceHeaders(apiError)), apiError.status, body);
  });
  api.post(graphqlPath, async (request, reply) => {
    const { service, graphql } = await load();
    const answer = await graphql.answerGraphQL(service, sessionOf(engine, request, reply), request.body, unexpectedIn(request));
    noteGraphQLErrors(request, codesOf(answer.errors ?? []));
    return send(reply, 200, answer);
  });
  return Promise.resolve();
}

function codesOf(errors: readonly GraphQLErrorObject[]): string[] {
  return errors.map((error) => error.extensions.code);
}

/** The body goes out a piece at a time as the client reads it, when it is large (see jsonBody). */
function send(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).header('content-type', 'application/json; charset=utf-8').send(jsonBody(body));
}

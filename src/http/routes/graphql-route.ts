import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../../engine/index.js';
import type { GraphQLErrorObject } from '../../graphql/errors.js';
import type { GraphQLRequest, GraphQLService } from '../../graphql/run.js';
import type { DerivedList } from '../../graphql/derived.js';
import type { Logger } from '../../log.js';
import { acceptedMediaRanges } from '../../media-types.js';
import type { UnmodeledRecord } from '../../model/index.js';
import { adviceHeaders, describeError, toApiError } from '../plugins/error-rendering.js';
import { noteFailure, noteGraphQLErrors } from '../plugins/request-log.js';
import { jsonBody } from '../plugins/streamed-json.js';
import { headerOf, varyWith } from './media-types.js';
import { sessionOf } from './request-session.js';

/** Where Terrakube's clients find Elide's GraphQL endpoint. */
export const graphqlPath = '/graphql/api/v1';

/** The GraphQL transport, loaded with the first GraphQL request. */
type GraphQLModule = typeof import('../../graphql/run.js');

/** What a GraphQL answer is sent as: JSON, or GraphQL over HTTP's own media type when the client prefers it. */
const graphqlResponseType = 'application/graphql-response+json';

/**
 * GraphQL over HTTP, as Elide serves it and as its specification has it. `POST` a JSON body
 * `{query, variables, operationName}`, or `GET` with them in the URL (a query only: a mutation is
 * 405 with `Allow: POST`). Answered `application/json`, 200 with `data` and `errors` whatever
 * happened inside the query, as Elide answers; or `application/graphql-response+json` when Accept
 * prefers it, whose answers without `data` (a document that does not parse or validate, the
 * limits) carry their errors' status. A request that never reaches GraphQL (no or a bad token, a
 * body over 1 MiB or not JSON, not an object with a query) keeps its HTTP status, and its error has
 * the same GraphQL shape. The codes of an answer's errors go to the request's log line and the
 * metrics, since its status does not tell them. Mounted behind the authentication of the API
 * routes, in a scope of its own for its error rendering.
 */
export function graphqlRoute(
  api: FastifyInstance,
  {
    engine,
    unmodeled,
    derived = [],
    log,
  }: { engine: Engine; unmodeled: Readonly<Record<string, UnmodeledRecord>>; derived?: readonly DerivedList[]; log: Logger },
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
        graphql: GraphQLModule;
        errors: typeof import('../../graphql/errors.js');
      }>;
  const load = () =>
    (loading ??= Promise.all([import('../../graphql/run.js'), import('../../graphql/errors.js')]).then(([graphql, errors]) => ({
      service: graphql.graphqlService(engine.registry, unmodeled, derived),
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
    return send(request, reply.headers(adviceHeaders(apiError)), apiError.status, body);
  });
  const answer = async (request: FastifyRequest, reply: FastifyReply, read: (graphql: GraphQLModule) => GraphQLRequest) => {
    const { service, graphql } = await load();
    const body = await graphql.answerGraphQL(service, sessionOf(engine, request, reply, 'graphql'), read(graphql), unexpectedIn(request));
    noteGraphQLErrors(request, codesOf(body.errors ?? []));
    // Without data, nothing ran: the status says why to a client of GraphQL over HTTP's media type.
    const status = answerType(request) === graphqlResponseType && !('data' in body) ? (body.errors?.[0]?.extensions.status ?? 400) : 200;
    return send(request, reply, status, body);
  };
  api.post(graphqlPath, (request, reply) => answer(request, reply, (graphql) => graphql.requestFromBody(request.body)));
  api.get(graphqlPath, (request, reply) =>
    answer(request, reply, (graphql) => graphql.requestFromQuery(request.query as Record<string, string | string[] | undefined>)),
  );
  return Promise.resolve();
}

function codesOf(errors: readonly GraphQLErrorObject[]): string[] {
  return errors.map((error) => error.extensions.code);
}

/**
 * The media type an answer is sent as: GraphQL over HTTP's when Accept names it and weighs it no
 * less than JSON; JSON otherwise (no Accept, any type, the web UI's `application/json, ...`, or
 * none that Stratum has, which it answers all the same).
 */
function answerType(request: FastifyRequest): typeof graphqlResponseType | 'application/json' {
  const ranges = acceptedMediaRanges(headerOf(request, 'accept') ?? '').filter((range) => range !== undefined);
  const weight = (...essences: string[]) => {
    for (const essence of essences) {
      const named = ranges.filter((range) => range.essence === essence);
      if (named.length > 0) return Math.max(...named.map((range) => range.weight));
    }
    return 0;
  };
  const preferred = weight(graphqlResponseType);
  return preferred > 0 && preferred >= weight('application/json', 'application/*', '*/*') ? graphqlResponseType : 'application/json';
}

/** The body goes out a piece at a time as the client reads it, when it is large (see jsonBody); its type depends on Accept. */
function send(request: FastifyRequest, reply: FastifyReply, status: number, body: unknown): FastifyReply {
  varyWith(reply, 'Accept');
  return reply
    .code(status)
    .header('content-type', `${answerType(request)}; charset=utf-8`)
    .send(jsonBody(body));
}

import type { FastifyInstance, FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';

export type JsonSchema = Record<string, unknown>;

/**
 * A route and its description in one: Fastify validates requests and serializes answers with its
 * schemas, and the OpenAPI document is generated from the same definition, so the two cannot differ.
 */
export interface DescribedRoute {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  operationId: string;
  summary: string;
  params?: Record<string, JsonSchema>;
  /** The query parameters it takes, all optional; any other is refused. */
  query?: Record<string, JsonSchema>;
  body?: JsonSchema;
  /**
   * The success answer: its status, and the schema of its body (none for an empty answer); or the
   * media type of a body that is not JSON (a zip), described without a schema; or both, for JSON
   * of another media type (a JSON:API document).
   */
  success: { status: number; description: string; schema?: JsonSchema; mediaType?: string };
  /** The error statuses the route answers, each with a JSON:API error document (and what it means here, where the status says too little). */
  errors: readonly (number | { status: number; description: string })[];
  /** Whether HEAD is answered like GET (Fastify's default); false where GET does costly work a HEAD would repeat. */
  head?: false;
  /**
   * Examples for the description: a request body that succeeds as it stands, its answer, and
   * path parameters (placeholders a client replaces with the ids of its records).
   */
  examples?: { body?: unknown; answer?: unknown; params?: Record<string, string> };
  /** The group the description lists it under, when it is a resource's (a workspace's effective variables); else its path's. */
  tag?: string;
  /** Served without a token (described with no security requirement). */
  public?: true;
  /** A check before the body is read: a JSON:API document's media types (routes/media-types.ts). */
  preParsing?: preParsingHookHandler;
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

/** Mounts described routes on the server, with their schemas. */
export function registerDescribedRoutes(api: FastifyInstance, routes: readonly DescribedRoute[]): void {
  for (const route of routes) {
    const params =
      route.params === undefined ? undefined : { type: 'object', properties: route.params, required: Object.keys(route.params) };
    const querystring = route.query === undefined ? undefined : { type: 'object', properties: route.query, additionalProperties: false };
    const response = route.success.schema === undefined ? undefined : { [route.success.status]: route.success.schema };
    api.route({
      method: route.method,
      url: route.url,
      ...(route.head === false ? { exposeHeadRoute: false } : {}),
      ...(route.preParsing === undefined ? {} : { preParsing: route.preParsing }),
      schema: {
        ...(route.body === undefined ? {} : { body: route.body }),
        ...(params === undefined ? {} : { params }),
        ...(querystring === undefined ? {} : { querystring }),
        ...(response === undefined ? {} : { response }),
      },
      handler: route.handler,
    });
  }
}

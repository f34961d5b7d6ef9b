import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../store/database.js';
import { requireCaller } from '../http/authenticate.js';
import { sendDocument } from '../http/send-document.js';
import type { ResourceDeclaration, Resources } from './declaration.js';
import {
  createRecord,
  deleteRecord,
  idParameter,
  listRecords,
  readRecord,
  updateRecord,
  type Endpoint,
  type HandlerRequest,
  type HandlerResponse,
} from './handlers.js';

export const apiPrefix = '/api/v1';

/** The resources from the organization down to `resource`'s parent, in path order. */
export function ancestorsOf(resource: ResourceDeclaration, resources: Resources): ResourceDeclaration[] {
  const chain: ResourceDeclaration[] = [];
  let parentType = resource.parent?.type;
  while (parentType !== undefined) {
    const parent = resources.get(parentType);
    if (parent === undefined) throw new Error(`${resource.type} names an undeclared parent ${parentType}`);
    chain.unshift(parent);
    parentType = parent.parent?.type;
  }
  return chain;
}

/** Where a resource is mounted: its collection path and its record path, nested under its parents. */
export function resourcePaths(resource: ResourceDeclaration, resources: Resources): { collection: string; record: string } {
  const base = ancestorsOf(resource, resources)
    .map((a) => `/${a.type}/:${idParameter(a)}`)
    .join('');
  const collection = `${apiPrefix}${base}/${resource.type}`;
  return { collection, record: `${collection}/:${idParameter(resource)}` };
}

/**
 * Mounts every declared resource: the list and create operations on its collection path, and read,
 * update and delete on its record path (`/organization/:organizationId/template/:templateId`).
 */
export function registerResourceRoutes(app: FastifyInstance, resources: Resources, store: Store): void {
  for (const resource of resources.values()) {
    const endpoint: Endpoint = { resource, ancestors: ancestorsOf(resource, resources), resources, store };
    const { collection, record } = resourcePaths(resource, resources);
    const route = (handler: (e: Endpoint, r: HandlerRequest) => Promise<HandlerResponse>) =>
      (request: FastifyRequest, reply: FastifyReply) => handler(endpoint, toHandlerRequest(request)).then((r) => send(reply, r));
    app.get(collection, route(listRecords));
    app.post(collection, route(createRecord));
    app.get(record, route(readRecord));
    app.patch(record, route(updateRecord));
    app.delete(record, route(deleteRecord));
  }
}

function toHandlerRequest(request: FastifyRequest): HandlerRequest {
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(',') : value;
  };
  return {
    caller: requireCaller(request),
    params: request.params as Record<string, string>,
    query: request.query as Record<string, string | string[] | undefined>,
    body: request.body,
    ifMatch: header('if-match'),
    ifNoneMatch: header('if-none-match'),
    path: request.url.split('?')[0] ?? request.url,
  };
}

function send(reply: FastifyReply, response: HandlerResponse): FastifyReply {
  reply.code(response.status);
  for (const [name, value] of Object.entries(response.headers ?? {})) reply.header(name, value);
  if (response.body === undefined) return reply.send();
  return sendDocument(reply, response.status, response.body);
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SecretCipher } from '../secrets/cipher.js';
import type { Store } from '../store/database.js';
import { requireCaller } from '../http/authenticate.js';
import { sendDocument } from '../http/send-document.js';
import { allOperations, declared, type Operation, type ResourceDeclaration, type Resources, type ToOne } from './declaration.js';
import {
  createRecord,
  deleteRecord,
  idParameter,
  listRecords,
  readRecord,
  readRelated,
  readRelationship,
  updateRecord,
  updateRelationship,
  type Endpoint,
  type Handler,
  type HandlerRequest,
  type HandlerResponse,
} from './handlers.js';

export const apiPrefix = '/api/v1';

export type RouteKind = Operation | 'readRelated' | 'readRelationship' | 'updateRelationship';

/** One method on one path, and the endpoint that serves it: what the router and the API description share. */
export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  kind: RouteKind;
  endpoint: Endpoint;
  handler: Handler;
  /** The relationship a related-record route follows. */
  link?: { name: string; relationship: ToOne };
}

const handlers: Record<Operation, { method: Route['method']; handler: Handler; onRecord: boolean }> = {
  list: { method: 'GET', handler: listRecords, onRecord: false },
  create: { method: 'POST', handler: createRecord, onRecord: false },
  read: { method: 'GET', handler: readRecord, onRecord: true },
  update: { method: 'PATCH', handler: updateRecord, onRecord: true },
  delete: { method: 'DELETE', handler: deleteRecord, onRecord: true },
};

/**
 * Every route of the API, derived from the declarations. A resource is mounted under its parent's
 * record path (`/organization/{organizationId}/template/{templateId}`), and also at the root when it
 * declares so; its children follow it to every place it is mounted. Each record path also serves
 * its relationships (`/relationships/{name}`) and the records its to-one links name (`/vcs`,
 * `/vcs/{vcsId}`).
 */
export function routesOf(resources: Resources, store: Store, cipher: SecretCipher): Route[] {
  const routes: Route[] = [];
  const mount = (resource: ResourceDeclaration, ancestors: ResourceDeclaration[], base: string, operations: readonly Operation[]) => {
    const endpoint: Endpoint = { resource, ancestors, resources, store, cipher };
    const collectionPath = `${base}/${resource.type}`;
    const recordPath = `${collectionPath}/:${idParameter(resource)}`;
    for (const kind of operations) {
      const { method, handler, onRecord } = handlers[kind];
      routes.push({ method, path: onRecord ? recordPath : collectionPath, kind, endpoint, handler });
    }
    routes.push(
      { method: 'GET', path: `${recordPath}/relationships/:relationship`, kind: 'readRelationship', endpoint, handler: readRelationship },
      { method: 'PATCH', path: `${recordPath}/relationships/:relationship`, kind: 'updateRelationship', endpoint, handler: updateRelationship },
    );
    for (const [name, relationship] of Object.entries(resource.relationships)) {
      if (relationship.kind !== 'toOne') continue;
      const target = declared(resources, relationship.type, resource.type);
      const link = { name, relationship };
      routes.push({ method: 'GET', path: `${recordPath}/${name}`, kind: 'readRelated', endpoint, handler: readRelated(relationship), link });
      // The linked record as a record of its own, as `/workspace/{id}/vcs/{vcsId}` serves it; not for
      // the parent, which has its own path.
      if (name === resource.parent?.relationship) continue;
      // Named after the linked type, unless the path already names a record of that type.
      const parameter = recordPath.includes(`/:${idParameter(target)}`) ? 'relatedId' : idParameter(target);
      const linked: Endpoint = { resource: target, ancestors: [], via: { owner: endpoint, link: relationship, parameter }, resources, store, cipher };
      for (const kind of ['read', 'update', 'delete'] as const) {
        const { method, handler } = handlers[kind];
        routes.push({ method, path: `${recordPath}/${name}/:${parameter}`, kind, endpoint: linked, handler });
      }
    }
    for (const child of resources.values()) {
      if (child.parent?.type === resource.type) mount(child, [...ancestors, resource], recordPath, allOperations);
    }
  };
  for (const resource of resources.values()) {
    if (resource.parent === undefined) mount(resource, [], apiPrefix, allOperations);
    else if (resource.atRoot !== undefined) mount(resource, [], apiPrefix, resource.atRoot);
  }
  return routes;
}

/** Mounts every route on the HTTP server. */
export function registerRoutes(app: FastifyInstance, routes: readonly Route[]): void {
  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.path,
      handler: (request: FastifyRequest, reply: FastifyReply) =>
        route.handler(route.endpoint, toHandlerRequest(request)).then((response) => send(reply, response)),
    });
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

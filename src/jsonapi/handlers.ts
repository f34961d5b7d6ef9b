import type { Precondition, Session } from '../engine/index.js';
import { listDocument, pageDocument, recordDocument } from './document.js';
import { inDocument } from './errors.js';
import { includes, parseListQuery, parseReadQuery } from './query.js';
import { parseLinkageDocument, parseResourceDocument } from './request-document.js';
import { collectionAt, recordAt, type Route } from './routes.js';
import type { Registry } from '../model/index.js';

/** What the JSON:API mapping needs of an HTTP request, free of the HTTP framework. */
export interface JsonApiRequest {
  params: Readonly<Record<string, string | undefined>>;
  query: Readonly<Record<string, string | string[] | undefined>>;
  body: unknown;
  ifMatch: string | undefined;
  ifNoneMatch: string | undefined;
  /** The request path without its query, for links. */
  path: string;
}

export interface JsonApiResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const preconditionOf = (request: JsonApiRequest): Precondition | undefined =>
  request.ifMatch === undefined ? undefined : { ifMatch: request.ifMatch };

/**
 * Serves one route on the caller's session: reads the query and the document, calls the engine,
 * and answers with the JSON:API status, headers and document. Query parameters are checked before
 * anything is looked up, documents only once the record is found and the write allowed.
 */
export async function handle(session: Session, registry: Registry, route: Route, request: JsonApiRequest): Promise<JsonApiResponse> {
  const { resource } = route.mount;
  switch (route.kind) {
    case 'list': {
      if (route.mount.single === true) return readSingle(session, registry, route, request);
      const query = parseListQuery(request.query, resource, registry);
      const page = await session.list(collectionAt(route.mount, request.params), query.draft);
      return { status: 200, body: pageDocument(page, query.fields, includes(query), query.pageStyle, request.path, request.query) };
    }
    case 'read': {
      const query = parseReadQuery(request.query, resource, registry);
      const { etag, result } = await session.read(recordAt(route.mount, request.params), query.options, request.ifNoneMatch);
      if (result === undefined) return { status: 304, headers: { etag } };
      return { status: 200, body: recordDocument(result, query.fields, includes(query)), headers: { etag } };
    }
    case 'create': {
      const query = parseReadQuery(request.query, resource, registry);
      const readInput = () => parseResourceDocument(request.body, resource, { action: 'create' });
      const result = await session.create(collectionAt(route.mount, request.params), readInput, query.options);
      const headers = { location: `${request.path}/${String(result.row.id)}`, etag: result.etag };
      return { status: 201, body: recordDocument(result, query.fields, includes(query)), headers };
    }
    case 'update': {
      parseReadQuery(request.query, resource, registry);
      const address = recordAt(route.mount, request.params);
      const readInput = () => parseResourceDocument(request.body, resource, { action: 'update', id: address.id });
      await session.update(address, readInput, preconditionOf(request));
      return { status: 204 };
    }
    case 'delete':
      parseReadQuery(request.query, resource, registry);
      await session.delete(recordAt(route.mount, request.params), preconditionOf(request));
      return { status: 204 };
    case 'readRelated': {
      const { link } = route.relationship;
      const query = parseReadQuery(request.query, registry.target(link), registry);
      const result = await session.readRelated(recordAt(route.mount, request.params), link, query.options);
      return { status: 200, body: result === null ? { data: null } : recordDocument(result, query.fields, includes(query)) };
    }
    case 'readRelationship':
      return readRelationshipRoute(session, registry, route, request);
    case 'updateRelationship':
    case 'changeRelationshipMembers': {
      const name = request.params.relationship ?? '';
      // A relationship the resource does not have is a 404 before anything else of the request is judged.
      session.relationship(resource, name);
      parseReadQuery(request.query, resource, registry);
      const address = recordAt(route.mount, request.params);
      const readLinkage = () => parseLinkageDocument(request.body);
      try {
        if (route.kind === 'updateRelationship') await session.link(address, name, readLinkage, preconditionOf(request));
        else await session.changeMembers(address, name, preconditionOf(request));
      } catch (error) {
        throw inDocument(error, 'linkage');
      }
      return { status: 204 };
    }
  }
}

/** GET of a collection its parent holds at most one record of: that record, or null, as a to-one related read answers. */
async function readSingle(session: Session, registry: Registry, route: Route, request: JsonApiRequest): Promise<JsonApiResponse> {
  const query = parseReadQuery(request.query, route.mount.resource, registry);
  const page = await session.list(collectionAt(route.mount, request.params), {
    include: query.options.include,
    page: { limit: { name: 'page[limit]', value: 1 } },
  });
  const [row] = page.rows;
  if (row === undefined) return { status: 200, body: { data: null } };
  return { status: 200, body: recordDocument({ resource: page.resource, row, included: page.included }, query.fields, includes(query)) };
}

/** GET `{record}/relationships/{name}`: the linkage of one relationship, a to-one link or a page of to-many ones. */
async function readRelationshipRoute(
  session: Session,
  registry: Registry,
  route: Route,
  request: JsonApiRequest,
): Promise<JsonApiResponse> {
  const { resource } = route.mount;
  const relationship = session.relationship(resource, request.params.relationship ?? '');
  const address = recordAt(route.mount, request.params);
  if (relationship.kind !== 'toMany' && relationship.kind !== 'manyToMany') {
    parseReadQuery(request.query, resource, registry);
    const content = await session.readRelationship(address, relationship);
    if (content.kind === 'toOne') return { status: 200, body: { data: content.linkage } };
    return { status: 200, body: { data: content.kind === 'unmodeled' && content.many ? [] : null } };
  }
  const query = parseListQuery(request.query, registry.target(relationship), registry);
  const content = await session.readRelationship(address, relationship, query.draft);
  if (content.kind !== 'toMany') throw new Error('a to-many relationship read as another kind');
  const { rows, hasMore, total } = content.records;
  const data = rows.map((row) => ({ type: content.type, id: String(row.id) }));
  if (content.atMostOne) return { status: 200, body: { data: data[0] ?? null } };
  const page = { ...content.page, ...query.pageStyle };
  return { status: 200, body: listDocument(data, undefined, page, hasMore, total, request.path, request.query) };
}

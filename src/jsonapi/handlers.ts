import type { Caller } from '../auth/caller.js';
import { scopeOf, type Engine, type Scope } from '../engine/engine.js';
import { locateRecord } from '../engine/locate.js';
import { listRecords, readRelated, withIncluded } from '../engine/read.js';
import { readRelationship, relationshipNamed, updateRelationship } from '../engine/relationships.js';
import { entityTag, tagMatches, type Precondition } from '../engine/versions.js';
import { createRecord, deleteRecord, updateRecord } from '../engine/write.js';
import { listDocument, pageDocument, recordDocument } from './document.js';
import { inDocument } from './errors.js';
import { parseListQuery, parseReadQuery, type ReadQuery } from './query.js';
import { parseLinkageDocument, parseResourceDocument } from './request-document.js';
import { collectionAt, recordAt, type Route } from './routes.js';

/** What the JSON:API mapping needs of an HTTP request, free of the HTTP framework. */
export interface JsonApiRequest {
  caller: Caller;
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

const hasIncludes = (query: ReadQuery) => Object.keys(query.options.include).length > 0;
const preconditionOf = (request: JsonApiRequest): Precondition | undefined =>
  request.ifMatch === undefined ? undefined : { ifMatch: request.ifMatch };

/** An answer, and what gives back the memory its rows hold once it has been sent. */
export interface Answer {
  response: JsonApiResponse;
  release: () => void;
}

/**
 * Serves one route: reads the query and the document, calls the engine, and answers with the
 * JSON:API status, headers and document. Query parameters are checked before anything is looked
 * up, documents only once the record is found and the write allowed. The caller sends the answer,
 * then calls `release`: until the answer has left, its rows count against the memory of answers.
 */
export async function handle(engine: Engine, route: Route, request: JsonApiRequest): Promise<Answer> {
  const scope = scopeOf(engine, request.caller);
  try {
    return { response: await serve(scope, route, request), release: () => scope.budget.release() };
  } catch (error) {
    scope.budget.release();
    throw error;
  }
}

async function serve(scope: Scope, route: Route, request: JsonApiRequest): Promise<JsonApiResponse> {
  const { registry } = scope.engine;
  const { resource } = route.mount;
  switch (route.kind) {
    case 'list': {
      const query = parseListQuery(request.query, resource, registry);
      const page = await listRecords(scope, collectionAt(route.mount, request.params), query.options);
      return { status: 200, body: pageDocument(page, query.fields, hasIncludes(query), query.page, request.path, request.query) };
    }
    case 'read': {
      const query = parseReadQuery(request.query, resource, registry);
      const row = await locateRecord(scope, recordAt(route.mount, request.params));
      const etag = entityTag(resource, row);
      if (request.ifNoneMatch !== undefined && tagMatches(request.ifNoneMatch, etag)) return { status: 304, headers: { etag } };
      const result = await withIncluded(scope, resource, row, query.options);
      return { status: 200, body: recordDocument(result, query.fields, hasIncludes(query)), headers: { etag } };
    }
    case 'create': {
      const query = parseReadQuery(request.query, resource, registry);
      const readInput = () => parseResourceDocument(request.body, resource, registry, { action: 'create' });
      const result = await createRecord(scope, collectionAt(route.mount, request.params), readInput, query.options);
      const headers = { location: `${request.path}/${String(result.row.id)}`, etag: entityTag(resource, result.row) };
      return { status: 201, body: recordDocument(result, query.fields, hasIncludes(query)), headers };
    }
    case 'update': {
      parseReadQuery(request.query, resource, registry);
      const address = recordAt(route.mount, request.params);
      const readInput = () => parseResourceDocument(request.body, resource, registry, { action: 'update', id: address.id });
      await updateRecord(scope, address, readInput, preconditionOf(request));
      return { status: 204 };
    }
    case 'delete':
      parseReadQuery(request.query, resource, registry);
      await deleteRecord(scope, recordAt(route.mount, request.params), preconditionOf(request));
      return { status: 204 };
    case 'readRelated': {
      const { link } = route.relationship;
      const query = parseReadQuery(request.query, registry.target(link), registry);
      const result = await readRelated(scope, recordAt(route.mount, request.params), link, query.options);
      return { status: 200, body: result === null ? { data: null } : recordDocument(result, query.fields, hasIncludes(query)) };
    }
    case 'readRelationship':
      return readRelationshipRoute(scope, route, request);
    case 'updateRelationship': {
      const name = request.params.relationship ?? '';
      const relationship = relationshipNamed(scope, resource, name);
      parseReadQuery(request.query, resource, registry);
      const readLinkage = () => parseLinkageDocument(request.body);
      try {
        await updateRelationship(scope, recordAt(route.mount, request.params), name, relationship, readLinkage, preconditionOf(request));
      } catch (error) {
        throw inDocument(error, 'linkage');
      }
      return { status: 204 };
    }
  }
}

/** GET `{record}/relationships/{name}`: the linkage of one relationship, a to-one link or a page of to-many ones. */
async function readRelationshipRoute(scope: Scope, route: Route, request: JsonApiRequest): Promise<JsonApiResponse> {
  const { registry } = scope.engine;
  const { resource } = route.mount;
  const relationship = relationshipNamed(scope, resource, request.params.relationship ?? '');
  const address = recordAt(route.mount, request.params);
  if (relationship.kind !== 'toMany') {
    parseReadQuery(request.query, resource, registry);
    const content = await readRelationship(scope, address, relationship);
    if (content.kind === 'toOne') return { status: 200, body: { data: content.linkage } };
    return { status: 200, body: { data: content.kind === 'unmodeled' && content.many ? [] : null } };
  }
  const query = parseListQuery(request.query, registry.target(relationship), registry);
  const content = await readRelationship(scope, address, relationship, { sort: query.options.sort, page: query.page });
  if (content.kind !== 'toMany') throw new Error('a to-many relationship read as another kind');
  const { rows, hasMore, total } = content.records;
  const data = rows.map((row) => ({ type: content.type, id: String(row.id) }));
  return { status: 200, body: listDocument(data, undefined, query.page, hasMore, total, request.path, request.query) };
}

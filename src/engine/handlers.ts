import { sql, type Kysely, type SqlBool, type Transaction } from 'kysely';
import { auditName, type Caller } from '../auth/caller.js';
import { capabilitiesIn } from '../auth/policy.js';
import { entityTag, listDocument, tagMatches } from '../jsonapi/document.js';
import { ApiError, conflict, forbidden, notFound } from '../jsonapi/errors.js';
import { parseListQuery, parseReadQuery, type ReadQuery } from '../jsonapi/query.js';
import { isObject, parseResourceDocument, type AttributeValues, type ResourceInput } from '../jsonapi/request-document.js';
import { compileFilter } from '../jsonapi/rsql.js';
import { toResourceObject, type ResourceObject } from '../jsonapi/serialize.js';
import type { SecretCipher } from '../secrets/cipher.js';
import type { Database, Row, Store } from '../store/database.js';
import { classifyDatabaseError } from '../store/database-errors.js';
import { newRecordId } from '../store/record-id.js';
import { toColumns } from './codec.js';
import { columnOf, declared, parentLink, unmodeledRelationships, type ResourceDeclaration, type Resources, type ToOne } from './declaration.js';
import { loadIncluded, recordKey, type IncludeResult } from './include.js';
import { findVisible, listVisible, type QueryScope } from './records.js';
import { sealSecrets } from './secret-values.js';

/** What a handler needs of an HTTP request, free of the HTTP framework. */
export interface HandlerRequest {
  caller: Caller;
  params: Readonly<Record<string, string>>;
  query: Readonly<Record<string, string | string[] | undefined>>;
  body: unknown;
  ifMatch: string | undefined;
  ifNoneMatch: string | undefined;
  /** The request path without its query, for links. */
  path: string;
}

export interface HandlerResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One resource as mounted at one path, and what serving it needs. */
export interface Endpoint {
  resource: ResourceDeclaration;
  /** The resources whose ids the path names before the record's own, outermost first. */
  ancestors: readonly ResourceDeclaration[];
  /**
   * Set when the record is reached through another record's to-one link (`/workspace/{id}/vcs/{id}`):
   * the owner's endpoint, the link, and the path parameter of the linked record's id.
   */
  via?: { owner: Endpoint; link: ToOne; parameter: string };
  resources: Resources;
  store: Store;
  cipher: SecretCipher;
}

export type Handler = (endpoint: Endpoint, request: HandlerRequest) => Promise<HandlerResponse>;

export const idParameter = (resource: ResourceDeclaration) => `${resource.type}Id`;

function scopeOf(endpoint: Endpoint, caller: Caller, db: Kysely<Database> = endpoint.store.db): QueryScope {
  return { db, caller, resources: endpoint.resources, dialect: endpoint.store.dialect };
}

/**
 * Finds each ancestor named in the path, checking it is visible and that each one belongs to the one
 * before it; the first that is not answers 404 with its own id. Returns the ancestors' rows.
 */
async function resolveAncestors(endpoint: Endpoint, scope: QueryScope, params: HandlerRequest['params']): Promise<Row[]> {
  const rows: Row[] = [];
  for (const ancestor of endpoint.ancestors) rows.push(await findUnder(scope, ancestor, params[idParameter(ancestor)] ?? '', rows.at(-1)));
  return rows;
}

/** The visible record `id`, which must belong to `parent` when there is one; otherwise a 404 naming it. */
async function findUnder(scope: QueryScope, resource: ResourceDeclaration, id: string, parent: Row | undefined): Promise<Row> {
  const row = await findVisible(scope, resource, id, scope.db);
  const link = parentLink(resource);
  if (row === undefined || (parent !== undefined && link !== undefined && row[link.column] !== parent.id)) throw notFound(resource.type, id);
  return row;
}

interface Located {
  row: Row;
  ancestors: Row[];
}

/** The record named by the path, under the ancestors the path names or through the link it names. */
async function resolveRecord(endpoint: Endpoint, scope: QueryScope, params: HandlerRequest['params']): Promise<Located> {
  if (endpoint.via !== undefined) {
    const owner = await resolveRecord(endpoint.via.owner, scope, params);
    const id = params[endpoint.via.parameter] ?? '';
    const row = owner.row[endpoint.via.link.column] === id ? await findVisible(scope, endpoint.resource, id, scope.db) : undefined;
    if (row === undefined) throw notFound(endpoint.resource.type, id);
    return { row, ancestors: [] };
  }
  const ancestors = await resolveAncestors(endpoint, scope, params);
  const row = await findUnder(scope, endpoint.resource, params[idParameter(endpoint.resource)] ?? '', ancestors.at(-1));
  return { row, ancestors };
}

/** The organization a record belongs to, walking up its parents (no query when the parent is the organization). */
async function organizationIdOf(scope: QueryScope, resource: ResourceDeclaration, row: Row): Promise<string> {
  const link = parentLink(resource);
  const parent = resource.parent === undefined ? undefined : scope.resources.get(resource.parent.type);
  if (link === undefined || parent === undefined) return String(row.id);
  if (parent.parent === undefined) return String(row[link.column]);
  const parentRow = await scope.db.selectFrom(parent.table).selectAll().where('id', '=', row[link.column]).executeTakeFirstOrThrow();
  return organizationIdOf(scope, parent, parentRow);
}

async function authorizeWrite(resource: ResourceDeclaration, scope: QueryScope, organizationId: string): Promise<void> {
  const policy = resource.write;
  if ('administratorOnly' in policy) {
    if (!scope.caller.isAdministrator) {
      throw forbidden(`Only members of the administrator group may create, update or delete ${resource.type} records.`);
    }
    return;
  }
  const held = await capabilitiesIn(scope.db, scope.caller, organizationId);
  if (!held.has(policy.capability)) {
    throw forbidden(`Changing ${resource.type} records needs the ${policy.capability} permission in this organization.`);
  }
}

function serializeWithIncludes(query: ReadQuery, include: IncludeResult, resource: ResourceDeclaration, row: Row): ResourceObject {
  return toResourceObject(resource, row, {
    fields: query.fields.get(resource.type),
    toMany: include.toMany.get(recordKey(resource.type, row.id)),
  });
}

function includedObjects(query: ReadQuery, include: IncludeResult, primary: Set<string>): ResourceObject[] {
  const objects: ResourceObject[] = [];
  for (const [key, record] of include.included) {
    if (!primary.has(key)) objects.push(serializeWithIncludes(query, include, record.resource, record.row));
  }
  return objects;
}

/** A document of one record, with what its `include` asks for. */
async function singleDocument(
  scope: QueryScope,
  query: ReadQuery,
  resource: ResourceDeclaration,
  row: Row,
): Promise<{ data: ResourceObject; included?: ResourceObject[] }> {
  const include = await loadIncluded(scope, resource, [row], query.include, new Map());
  const document: { data: ResourceObject; included?: ResourceObject[] } = { data: serializeWithIncludes(query, include, resource, row) };
  if (Object.keys(query.include).length > 0) {
    document.included = includedObjects(query, include, new Set([recordKey(resource.type, row.id)]));
  }
  return document;
}

/** Serialization options of a record's full representation, the one its ETag is computed from. */
const plain = { fields: undefined, toMany: undefined };

const tagOf = (resource: ResourceDeclaration, row: Row) => entityTag(toResourceObject(resource, row, plain));

export async function listRecords(endpoint: Endpoint, request: HandlerRequest): Promise<HandlerResponse> {
  const { resource } = endpoint;
  const query = parseListQuery(request.query, resource, endpoint.resources);
  const scope = scopeOf(endpoint, request.caller);
  const ancestors = await resolveAncestors(endpoint, scope, request.params);
  const context = { resources: endpoint.resources, dialect: endpoint.store.dialect };
  const where = [];
  const link = parentLink(resource);
  const parent = ancestors.at(-1);
  if (link !== undefined && parent !== undefined) where.push(sql<SqlBool>`${sql.ref(`r.${link.column}`)} = ${String(parent.id)}`);
  if (query.filters.joined !== undefined) where.push(compileFilter(query.filters.joined, resource, 'r', { ...context, parameter: 'filter' }));
  const typed = query.filters.byType.get(resource.type);
  if (typed !== undefined) where.push(compileFilter(typed, resource, 'r', { ...context, parameter: `filter[${resource.type}]` }));

  const { rows, hasMore, total } = await listVisible(scope, resource, { where, sort: query.sort, page: query.page });
  const include = await loadIncluded(scope, resource, rows, query.include, query.filters.byType);
  const data = rows.map((row) => serializeWithIncludes(query, include, resource, row));
  const included =
    Object.keys(query.include).length > 0
      ? includedObjects(query, include, new Set(rows.map((row) => recordKey(resource.type, row.id))))
      : undefined;
  return { status: 200, body: listDocument(data, included, query.page, hasMore, total, request.path, request.query) };
}

export async function readRecord(endpoint: Endpoint, request: HandlerRequest): Promise<HandlerResponse> {
  const { resource } = endpoint;
  const query = parseReadQuery(request.query, resource, endpoint.resources);
  const scope = scopeOf(endpoint, request.caller);
  const { row } = await resolveRecord(endpoint, scope, request.params);
  const tag = tagOf(resource, row);
  if (request.ifNoneMatch !== undefined && tagMatches(request.ifNoneMatch, tag)) return { status: 304, headers: { etag: tag } };
  return { status: 200, body: await singleDocument(scope, query, resource, row), headers: { etag: tag } };
}

export async function createRecord(endpoint: Endpoint, request: HandlerRequest): Promise<HandlerResponse> {
  const { resource } = endpoint;
  const query = parseReadQuery(request.query, resource, endpoint.resources);
  const id = newRecordId();
  const row = await inTransaction(endpoint, async (trx) => {
    const scope = scopeOf(endpoint, request.caller, trx);
    const ancestors = await resolveAncestors(endpoint, scope, request.params);
    const parent = ancestors.at(-1);
    const parentResource = endpoint.ancestors.at(-1);
    const organizationId = parent === undefined || parentResource === undefined ? id : await organizationIdOf(scope, parentResource, parent);
    await authorizeWrite(resource, scope, organizationId);
    const input = parseResourceDocument(request.body, resource, { action: 'create' });
    const now = new Date().toISOString();
    const values = await prepareValues(endpoint, { trx, caller: request.caller, now, values: input.attributes, current: undefined, organizationId }, id);
    const who = auditName(request.caller);
    const columns: Row = {
      ...toColumns(resource, values),
      ...(await linkColumns(endpoint, scope, input, { parentId: parent?.id, organizationId })),
      id,
      created_by: who,
      created_date: now,
      updated_by: who,
      updated_date: now,
    };
    await trx.insertInto(resource.table).values(columns).execute();
    await resource.afterCreate?.({ trx, caller: request.caller, now }, columns);
    return findVisible(scope, resource, id, trx);
  });
  if (row === undefined) throw notFound(resource.type, id);
  const body = await singleDocument(scopeOf(endpoint, request.caller), query, resource, row);
  return { status: 201, body, headers: { location: `${request.path}/${id}`, etag: tagOf(resource, row) } };
}

export async function updateRecord(endpoint: Endpoint, request: HandlerRequest): Promise<HandlerResponse> {
  const { resource } = endpoint;
  await changeRecord(endpoint, request, async ({ trx, scope, row, organizationId }) => {
    const input = parseResourceDocument(request.body, resource, { action: 'update', id: String(row.id) });
    const now = new Date().toISOString();
    const values = await prepareValues(endpoint, { trx, caller: request.caller, now, values: input.attributes, current: row, organizationId }, row.id);
    const link = parentLink(resource);
    const columns: Row = {
      ...toColumns(resource, values),
      ...(await linkColumns(endpoint, scope, input, { parentId: link === undefined ? undefined : row[link.column], organizationId })),
      updated_by: auditName(request.caller),
      updated_date: now,
    };
    await trx.updateTable(resource.table).set(columns).where('id', '=', row.id).execute();
  });
  return { status: 204 };
}

export async function deleteRecord(endpoint: Endpoint, request: HandlerRequest): Promise<HandlerResponse> {
  await changeRecord(endpoint, request, async ({ trx, row }) => {
    // Children go with their parent through ON DELETE CASCADE, and links to it are cleared through
    // ON DELETE SET NULL, in this same statement.
    await trx.deleteFrom(endpoint.resource.table).where('id', '=', row.id).execute();
  });
  return { status: 204 };
}

/** Runs the resource's own rules over the values of a write, then seals its secrets. */
async function prepareValues(
  endpoint: Endpoint,
  write: Parameters<NonNullable<ResourceDeclaration['beforeWrite']>>[0],
  id: unknown,
): Promise<AttributeValues> {
  await endpoint.resource.beforeWrite?.(write);
  sealSecrets(endpoint.resource, write.values, write.current, id, endpoint.cipher);
  return write.values;
}

interface ExistingRecord {
  trx: Transaction<Database>;
  scope: QueryScope;
  row: Row;
  organizationId: string;
}

/**
 * The guards every change of an existing record passes, in one transaction with the change: the
 * record is visible under the path (404), the caller may write it (403), and If-Match holds (412).
 */
async function changeRecord(endpoint: Endpoint, request: HandlerRequest, change: (record: ExistingRecord) => Promise<void>): Promise<void> {
  parseReadQuery(request.query, endpoint.resource, endpoint.resources);
  await inTransaction(endpoint, async (trx) => {
    const scope = scopeOf(endpoint, request.caller, trx);
    const { row } = await resolveRecord(endpoint, scope, request.params);
    const organizationId = await organizationIdOf(scope, endpoint.resource, row);
    await authorizeWrite(endpoint.resource, scope, organizationId);
    checkPrecondition(endpoint.resource, row, request.ifMatch);
    await change({ trx, scope, row, organizationId });
  });
}

function checkPrecondition(resource: ResourceDeclaration, row: Row, ifMatch: string | undefined): void {
  if (ifMatch === undefined) return;
  if (!tagMatches(ifMatch, tagOf(resource, row))) {
    throw new ApiError(412, { code: 'precondition_failed', detail: 'The record has changed since it was read (If-Match does not match its ETag).' });
  }
}

/**
 * The to-one links of a write as columns. The link to the parent may be sent (clients do) but must
 * name the parent; a record never moves to another parent. Any other link must name a record the
 * caller can see in the same organization.
 */
async function linkColumns(
  endpoint: Endpoint,
  scope: QueryScope,
  input: ResourceInput,
  owner: { parentId: unknown; organizationId: string },
): Promise<Row> {
  const { resource } = endpoint;
  const columns: Row = {};
  for (const [name, id] of Object.entries(input.links)) {
    const link = resource.relationships[name] as ToOne;
    const pointer = `/data/relationships/${name}/data`;
    if (name === resource.parent?.relationship) {
      if (id !== owner.parentId) {
        throw new ApiError(422, { code: 'invalid_value', detail: `Relationship ${name} must be the ${link.type} of this ${resource.type}, ${String(owner.parentId)}.`, pointer });
      }
      continue;
    }
    await checkLinkTarget(scope, link, id, owner.organizationId, pointer);
    columns[link.column] = id;
  }
  const parent = parentLink(resource);
  if (parent !== undefined && owner.parentId !== undefined) columns[parent.column] = owner.parentId;
  return columns;
}

/** A link must name a record the caller can see, in the organization of the record that links it. */
async function checkLinkTarget(scope: QueryScope, link: ToOne, id: string | null, organizationId: string, pointer: string): Promise<void> {
  if (id === null) return;
  const target = scope.resources.get(link.type);
  const row = target === undefined ? undefined : await findVisible(scope, target, id, scope.db);
  if (target === undefined || row === undefined || (await organizationIdOf(scope, target, row)) !== organizationId) {
    throw new ApiError(422, { code: 'invalid_value', detail: `Unknown identifier ${id} for ${link.type} in this organization.`, pointer });
  }
}

/** GET `{record}/{link}`: the record a to-one relationship links, or null. */
export function readRelated(link: ToOne): Handler {
  return async (endpoint, request) => {
    const target = declared(endpoint.resources, link.type, endpoint.resource.type);
    const query = parseReadQuery(request.query, target, endpoint.resources);
    const scope = scopeOf(endpoint, request.caller);
    const { row } = await resolveRecord(endpoint, scope, request.params);
    const id = row[link.column];
    const related = typeof id === 'string' ? await findVisible(scope, target, id) : undefined;
    if (related === undefined) return { status: 200, body: { data: null } };
    return { status: 200, body: await singleDocument(scope, query, target, related) };
  };
}

/** GET `{record}/relationships/{name}`: the linkage of one relationship. */
export async function readRelationship(endpoint: Endpoint, request: HandlerRequest): Promise<HandlerResponse> {
  const { resource } = endpoint;
  const name = request.params.relationship ?? '';
  const relationship = relationshipNamed(resource, name);
  const scope = scopeOf(endpoint, request.caller);
  if (relationship === 'toOne' || relationship === 'toMany') {
    parseReadQuery(request.query, resource, endpoint.resources);
    await resolveRecord(endpoint, scope, request.params);
    return { status: 200, body: { data: relationship === 'toOne' ? null : [] } };
  }
  const target = declared(endpoint.resources, relationship.type, resource.type);
  if (relationship.kind === 'toOne') {
    parseReadQuery(request.query, resource, endpoint.resources);
    const { row } = await resolveRecord(endpoint, scope, request.params);
    const id = row[relationship.column];
    return { status: 200, body: { data: typeof id === 'string' ? { type: target.type, id } : null } };
  }
  const query = parseListQuery(request.query, target, endpoint.resources);
  const { row } = await resolveRecord(endpoint, scope, request.params);
  const { rows, hasMore, total } = await listVisible(scope, target, {
    where: [sql<SqlBool>`${sql.ref(`r.${relationship.column}`)} = ${String(row.id)}`],
    sort: query.sort,
    page: query.page,
  });
  const data = rows.map((r) => ({ type: target.type, id: String(r.id) }));
  return { status: 200, body: listDocument(data, undefined, query.page, hasMore, total, request.path, request.query) };
}

/** PATCH `{record}/relationships/{name}`: links a to-one relationship to another record, or unlinks it. */
export async function updateRelationship(endpoint: Endpoint, request: HandlerRequest): Promise<HandlerResponse> {
  const { resource } = endpoint;
  const name = request.params.relationship ?? '';
  const relationship = relationshipNamed(resource, name);
  const pointer = '/data';
  // Checked inside the change, after the record is found visible and writable: a caller who may not
  // see the record learns nothing about it, not even which relationships it has.
  await changeRecord(endpoint, request, async ({ trx, scope, row, organizationId }) => {
    if (relationship === 'toMany' || (typeof relationship === 'object' && relationship.kind === 'toMany')) {
      throw forbidden(`Relationship ${name} of ${resource.type} is changed through the records it lists, not replaced as a whole.`);
    }
    if (name === resource.parent?.relationship) throw forbidden(`A ${resource.type} never moves to another ${name}.`);
    const linkage = readLinkage(request.body);
    if (relationship === 'toOne') {
      if (linkage !== null) throw new ApiError(422, { code: 'not_supported', detail: `Relationship ${name} is not supported yet; send null.`, pointer });
      return;
    }
    if (linkage !== null && linkage.type !== relationship.type) {
      throw new ApiError(409, { code: 'type_mismatch', detail: `Relationship ${name} links ${relationship.type} records.`, pointer: '/data/type' });
    }
    await checkLinkTarget(scope, relationship, linkage?.id ?? null, organizationId, pointer);
    await trx
      .updateTable(resource.table)
      .set({ [relationship.column]: linkage?.id ?? null, updated_by: auditName(request.caller), updated_date: new Date().toISOString() })
      .where('id', '=', row.id)
      .execute();
  });
  return { status: 204 };
}

/** A declared relationship, or the kind of one Terrakube clients use that is not modeled yet. */
function relationshipNamed(resource: ResourceDeclaration, name: string): ResourceDeclaration['relationships'][string] | 'toOne' | 'toMany' {
  const declared = resource.relationships[name];
  if (declared !== undefined) return declared;
  const unmodeled = unmodeledRelationships.get(name);
  if (unmodeled !== undefined) return unmodeled;
  throw new ApiError(404, { code: 'not_found', detail: `${resource.type} has no relationship ${name}.` });
}

function readLinkage(body: unknown): { type: string; id: string } | null {
  const data = isObject(body) ? body.data : undefined;
  if (data === null) return null;
  if (isObject(data) && typeof data.type === 'string' && typeof data.id === 'string' && data.id !== '') return { type: data.type, id: data.id };
  throw new ApiError(400, { code: 'invalid_document', detail: 'A to-one relationship document is {"data": {"type", "id"}} or {"data": null}.', pointer: '/data' });
}

/**
 * Runs one write as one transaction: committed (and, on both stores, flushed to disk) before the
 * handler answers. Unique violations become 409 naming the field.
 */
async function inTransaction<T>(endpoint: Endpoint, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  try {
    return await endpoint.store.db.transaction().execute(work);
  } catch (error) {
    const failure = classifyDatabaseError(error);
    if (failure?.kind === 'unique') {
      const attribute = uniqueAttribute(endpoint.resource, failure.columns);
      throw conflict(
        `${article(endpoint.resource.type)} ${endpoint.resource.type} with this ${attribute} already exists${endpoint.resource.parent === undefined ? '' : ` in this ${endpoint.resource.parent.type}`}.`,
        `/data/attributes/${attribute}`,
      );
    }
    throw error;
  }
}

/** The attribute a unique index guards: its last column that is not a link to another record. */
function uniqueAttribute(resource: ResourceDeclaration, columns: string[]): string {
  const links = new Set(Object.values(resource.relationships).map((r) => r.column));
  const column = [...columns].reverse().find((c) => !links.has(c)) ?? columns.at(-1) ?? 'id';
  return Object.keys(resource.attributes).find((name) => columnOf(name) === column) ?? column;
}

function article(noun: string): string {
  return /^[aeiou]/i.test(noun) ? 'An' : 'A';
}

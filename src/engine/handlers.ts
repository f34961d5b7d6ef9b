import { sql, type Kysely, type SqlBool, type Transaction } from 'kysely';
import { auditName, type Caller } from '../auth/caller.js';
import { capabilitiesIn } from '../auth/policy.js';
import { entityTag, listDocument, tagMatches } from '../jsonapi/document.js';
import { ApiError, conflict, forbidden, notFound } from '../jsonapi/errors.js';
import { parseListQuery, parseReadQuery, type ReadQuery } from '../jsonapi/query.js';
import { parseResourceDocument, type ResourceInput } from '../jsonapi/request-document.js';
import { compileFilter } from '../jsonapi/rsql.js';
import { toResourceObject, type ResourceObject } from '../jsonapi/serialize.js';
import type { Database, Row, Store } from '../store/database.js';
import { classifyDatabaseError } from '../store/database-errors.js';
import { newRecordId } from '../store/record-id.js';
import { toColumns } from './codec.js';
import { columnOf, type ResourceDeclaration, type Resources, type ToOne } from './declaration.js';
import { loadIncluded, recordKey, type IncludeResult } from './include.js';
import { findVisible, listVisible, type QueryScope } from './records.js';

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

/** One resource as mounted at one path: its ancestors from the organization down, and the store. */
export interface Endpoint {
  resource: ResourceDeclaration;
  ancestors: readonly ResourceDeclaration[];
  resources: Resources;
  store: Store;
}

export const idParameter = (resource: ResourceDeclaration) => `${resource.type}Id`;

function scopeOf(endpoint: Endpoint, caller: Caller, db: Kysely<Database> = endpoint.store.db): QueryScope {
  return { db, caller, resources: endpoint.resources, dialect: endpoint.store.dialect };
}

/** The column of a resource that links it to its parent in the path. */
function parentColumn(resource: ResourceDeclaration): string | undefined {
  if (resource.parent === undefined) return undefined;
  return (resource.relationships[resource.parent.relationship] as ToOne).column;
}

/**
 * Finds each ancestor named in the path, checking it is visible and that each one belongs to the one
 * before it; the first that is not answers 404 with its own id. Returns the ancestors' rows.
 */
async function resolveAncestors(endpoint: Endpoint, scope: QueryScope, params: HandlerRequest['params']): Promise<Row[]> {
  const rows: Row[] = [];
  for (const ancestor of endpoint.ancestors) {
    const id = params[idParameter(ancestor)] ?? '';
    const row = await findVisible(scope, ancestor, id, scope.db);
    const previous = rows.at(-1);
    const column = parentColumn(ancestor);
    if (row === undefined || (previous !== undefined && column !== undefined && row[column] !== previous.id)) {
      throw notFound(ancestor.type, id);
    }
    rows.push(row);
  }
  return rows;
}

/** The record named by the path, under the ancestors the path names. */
async function resolveRecord(endpoint: Endpoint, scope: QueryScope, params: HandlerRequest['params']): Promise<{ row: Row; ancestors: Row[] }> {
  const ancestors = await resolveAncestors(endpoint, scope, params);
  const id = params[idParameter(endpoint.resource)] ?? '';
  const row = await findVisible(scope, endpoint.resource, id, scope.db);
  const parent = ancestors.at(-1);
  const column = parentColumn(endpoint.resource);
  if (row === undefined || (parent !== undefined && column !== undefined && row[column] !== parent.id)) {
    throw notFound(endpoint.resource.type, id);
  }
  return { row, ancestors };
}

/** The organization a record belongs to: the first ancestor, or the record itself at the root. */
function organizationOf(ancestors: Row[], row: Row | undefined): string | undefined {
  const root = ancestors[0] ?? row;
  return root === undefined ? undefined : String(root.id);
}

async function authorizeWrite(endpoint: Endpoint, scope: QueryScope, organizationId: string | undefined): Promise<void> {
  const policy = endpoint.resource.write;
  if ('administratorOnly' in policy) {
    if (!scope.caller.isAdministrator) {
      throw forbidden(`Only members of the administrator group may create, update or delete ${endpoint.resource.type} records.`);
    }
    return;
  }
  const held = organizationId === undefined ? new Set() : await capabilitiesIn(scope.db, scope.caller, organizationId);
  if (!held.has(policy.capability)) {
    throw forbidden(`Changing ${endpoint.resource.type} records needs the ${policy.capability} permission in this organization.`);
  }
}

function serializeWithIncludes(
  query: ReadQuery,
  include: IncludeResult,
  resource: ResourceDeclaration,
  row: Row,
): ResourceObject {
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

export async function listRecords(endpoint: Endpoint, request: HandlerRequest): Promise<HandlerResponse> {
  const { resource } = endpoint;
  const query = parseListQuery(request.query, resource, endpoint.resources);
  const scope = scopeOf(endpoint, request.caller);
  const ancestors = await resolveAncestors(endpoint, scope, request.params);
  const context = { resources: endpoint.resources, dialect: endpoint.store.dialect };
  const where = [];
  const column = parentColumn(resource);
  const parent = ancestors.at(-1);
  if (column !== undefined && parent !== undefined) where.push(sql<SqlBool>`${sql.ref(`r.${column}`)} = ${String(parent.id)}`);
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
  const tag = entityTag(toResourceObject(resource, row, plain));
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
    await authorizeWrite(endpoint, scope, organizationOf(ancestors, undefined));
    const input = parseResourceDocument(request.body, resource, { action: 'create' });
    const now = new Date().toISOString();
    const who = auditName(request.caller);
    const values: Row = {
      ...toColumns(resource, input.attributes),
      ...(await linkColumns(endpoint, scope, input, ancestors, undefined)),
      id,
      created_by: who,
      created_date: now,
      updated_by: who,
      updated_date: now,
    };
    await trx.insertInto(resource.table).values(values).execute();
    await resource.afterCreate?.({ trx, caller: request.caller, now }, values);
    return findVisible(scope, resource, id, trx);
  });
  if (row === undefined) throw notFound(resource.type, id);
  const body = await singleDocument(scopeOf(endpoint, request.caller), query, resource, row);
  return { status: 201, body, headers: { location: `${request.path}/${id}`, etag: entityTag(toResourceObject(resource, row, plain)) } };
}

export async function updateRecord(endpoint: Endpoint, request: HandlerRequest): Promise<HandlerResponse> {
  await changeRecord(endpoint, request, async ({ trx, scope, row, ancestors }) => {
    const input = parseResourceDocument(request.body, endpoint.resource, { action: 'update', id: String(row.id) });
    const values: Row = {
      ...toColumns(endpoint.resource, input.attributes),
      ...(await linkColumns(endpoint, scope, input, ancestors, row)),
      updated_by: auditName(request.caller),
      updated_date: new Date().toISOString(),
    };
    await trx.updateTable(endpoint.resource.table).set(values).where('id', '=', row.id).execute();
  });
  return { status: 204 };
}

export async function deleteRecord(endpoint: Endpoint, request: HandlerRequest): Promise<HandlerResponse> {
  await changeRecord(endpoint, request, async ({ trx, row }) => {
    // Children go with their parent through ON DELETE CASCADE, in this same statement.
    await trx.deleteFrom(endpoint.resource.table).where('id', '=', row.id).execute();
  });
  return { status: 204 };
}

interface ExistingRecord {
  trx: Transaction<Database>;
  scope: QueryScope;
  row: Row;
  ancestors: Row[];
}

/**
 * The guards every change of an existing record passes, in one transaction with the change: the
 * record is visible under the path (404), the caller may write it (403), and If-Match holds (412).
 */
async function changeRecord(endpoint: Endpoint, request: HandlerRequest, change: (record: ExistingRecord) => Promise<void>): Promise<void> {
  parseReadQuery(request.query, endpoint.resource, endpoint.resources);
  await inTransaction(endpoint, async (trx) => {
    const scope = scopeOf(endpoint, request.caller, trx);
    const { row, ancestors } = await resolveRecord(endpoint, scope, request.params);
    await authorizeWrite(endpoint, scope, organizationOf(ancestors, row));
    checkPrecondition(endpoint.resource, row, request.ifMatch);
    await change({ trx, scope, row, ancestors });
  });
}

function checkPrecondition(resource: ResourceDeclaration, row: Row, ifMatch: string | undefined): void {
  if (ifMatch === undefined) return;
  const current = entityTag(toResourceObject(resource, row, plain));
  if (!tagMatches(ifMatch, current)) {
    throw new ApiError(412, { code: 'precondition_failed', detail: 'The record has changed since it was read (If-Match does not match its ETag).' });
  }
}

/**
 * The to-one links of a write as columns. The link to the parent in the path may be sent (clients
 * do) but must name that parent; the parent of an existing record never changes. Any other link
 * must name a record the caller can see in the same organization.
 */
async function linkColumns(endpoint: Endpoint, scope: QueryScope, input: ResourceInput, ancestors: Row[], self: Row | undefined): Promise<Row> {
  const { resource } = endpoint;
  const columns: Row = {};
  const parent = ancestors.at(-1);
  const organizationId = organizationOf(ancestors, self);
  for (const [name, id] of Object.entries(input.links)) {
    const link = resource.relationships[name] as ToOne;
    const pointer = `/data/relationships/${name}/data`;
    if (name === resource.parent?.relationship) {
      if (id !== parent?.id) {
        throw new ApiError(422, { code: 'invalid_value', detail: `Relationship ${name} must be the ${link.type} of the path, ${String(parent?.id)}.`, pointer });
      }
      continue;
    }
    if (id !== null) {
      const target = endpoint.resources.get(link.type);
      const row = target === undefined ? undefined : await findVisible(scope, target, id, scope.db);
      if (target === undefined || row === undefined || (await organizationOfRecord(scope, target, row)) !== organizationId) {
        throw new ApiError(422, { code: 'invalid_value', detail: `Unknown identifier ${id} for ${link.type} in this organization.`, pointer });
      }
    }
    columns[link.column] = id;
  }
  const parentLink = parentColumn(resource);
  if (parentLink !== undefined && parent !== undefined) columns[parentLink] = parent.id;
  return columns;
}

/** Walks up a record's parents to the organization it belongs to. */
async function organizationOfRecord(scope: QueryScope, resource: ResourceDeclaration, row: Row): Promise<string> {
  let current = resource;
  let currentRow = row;
  while (current.parent !== undefined) {
    const parent = scope.resources.get(current.parent.type);
    const column = parentColumn(current);
    if (parent === undefined || column === undefined) break;
    const parentRow = await scope.db.selectFrom(parent.table).selectAll().where('id', '=', currentRow[column]).executeTakeFirstOrThrow();
    current = parent;
    currentRow = parentRow;
  }
  return String(currentRow.id);
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

import type { CollectionAddress, RecordAddress } from '../engine/index.js';
import { ApiError, badRequest, invalidValue } from '../errors.js';
import type { Registry, ResourceDeclaration } from '../model/index.js';
import type { HrefResolver } from './href.js';
import { isObject } from './request-document.js';
import { collectionAt, recordAt } from './routes.js';

/** The records earlier operations of a batch created under a local id (`lid`), by that id. */
export type LocalIds = Map<string, { type: string; id: string }>;

/** What one operation does, once its target is known and its local ids are replaced by ids. */
export type OperationPlan =
  | { kind: 'create'; collection: CollectionAddress; data: Record<string, unknown>; lid: string | undefined }
  | { kind: 'update'; address: RecordAddress; data: Record<string, unknown> }
  | { kind: 'delete'; address: RecordAddress }
  | { kind: 'relationship'; op: 'add' | 'update' | 'remove'; address: RecordAddress; name: string; data: unknown };

type Op = 'add' | 'update' | 'remove';
const operationMembers = new Set(['op', 'ref', 'href', 'data', 'meta']);
/** The member Elide reads beside `data`, for the resources that declare it (`atomicForms`). */
const besideData = 'relationships';

/**
 * Reads one operation object of the Atomic Operations extension: its code, its target (an `href`,
 * a `ref` by type and id or local id, or for `add` and `update` the resource object itself), and its
 * data with every local id an earlier operation defined replaced by the record's id. Pointers of
 * the errors are relative to the operation.
 */
export function planOperation(registry: Registry, hrefs: HrefResolver, operation: unknown, lids: LocalIds): OperationPlan {
  if (!isObject(operation)) throw badRequest('invalid_operation', 'An operation is an object with an op member.');
  for (const member of Object.keys(operation)) {
    // Whether the operation's resource takes `relationships` beside its data is known once its target is.
    if (!operationMembers.has(member) && member !== besideData)
      throw badRequest('invalid_operation', `Unknown operation member ${member}.`, { pointer: `/${member}` });
  }
  const op = operation.op;
  if (op !== 'add' && op !== 'update' && op !== 'remove') {
    throw badRequest('invalid_operation', 'op must be add, update or remove.', { pointer: '/op' });
  }
  const plan = planTarget(registry, hrefs, op, operation, lids);
  if (Object.hasOwn(operation, besideData)) checkRelationshipsBesideData(registry, plan, operation[besideData]);
  return plan;
}

/** The plan of an operation whose members and op are known to be well-formed. */
function planTarget(registry: Registry, hrefs: HrefResolver, op: Op, operation: Record<string, unknown>, lids: LocalIds): OperationPlan {
  if (operation.href !== undefined && operation.ref !== undefined) {
    throw badRequest('invalid_operation', 'An operation names its target with ref or href, not both.', { pointer: '/ref' });
  }
  const data = { present: Object.hasOwn(operation, 'data'), value: operation.data, lids };
  if (operation.href !== undefined) return planByHref(hrefs, op, operation.href, data);
  if (operation.ref !== undefined) return planByRef(registry, op, operation.ref, data);
  if (op === 'remove') throw badRequest('invalid_operation', 'A remove operation names its target with ref or href.', { pointer: '/ref' });
  if (op === 'update') {
    const resourceData = updateData(data);
    const resource = typeOf(registry, resourceData.type, '/data/type');
    return { kind: 'update', address: { resource, ancestors: [], id: requireId(resourceData.id, '/data/id') }, data: resourceData };
  }
  const resourceData = resourceWithIds(data);
  const resource = typeOf(registry, resourceData.type, '/data/type');
  return {
    kind: 'create',
    collection: collectionOfParent(registry, resource, resourceData),
    data: resourceData,
    lid: newLocalId(resourceData, lids),
  };
}

/** An operation's data as sent, and the local ids it may use. */
interface OperationData {
  present: boolean;
  value: unknown;
  lids: LocalIds;
}

function planByHref(hrefs: HrefResolver, op: Op, href: unknown, data: OperationData): OperationPlan {
  if (typeof href !== 'string') throw badRequest('invalid_href', 'href must be a string.', { pointer: '/href' });
  const relationship = hrefs.resolve(href, ['updateRelationship']);
  if (relationship !== undefined) {
    const name = relationship.params.relationship ?? '';
    return { kind: 'relationship', op, address: recordAt(relationship.route.mount, relationship.params), name, data: linkageWithIds(data) };
  }
  const kind = op === 'add' ? 'create' : op === 'update' ? 'update' : 'delete';
  const target = hrefs.resolve(href, [kind]);
  const atCollection = target === undefined && op === 'update' ? updateAtCollection(hrefs, href, data) : undefined;
  if (atCollection !== undefined) return atCollection;
  if (target === undefined) {
    const what = op === 'add' ? 'list of records' : 'record';
    throw new ApiError(404, { code: 'not_found', detail: `No ${what} or relationship to ${op} at ${href}.`, at: { pointer: '/href' } });
  }
  const { route, params } = target;
  if (op === 'remove') return { kind: 'delete', address: noData(data, recordAt(route.mount, params)) };
  if (op === 'update') return { kind: 'update', address: recordAt(route.mount, params), data: updateData(data) };
  const resourceData = resourceWithIds(data);
  return { kind: 'create', collection: collectionAt(route.mount, params), data: resourceData, lid: newLocalId(resourceData, data.lids) };
}

function planByRef(registry: Registry, op: Op, ref: unknown, data: OperationData): OperationPlan {
  if (!isObject(ref))
    throw badRequest('invalid_ref', 'ref is an object with type, id or lid, and optionally relationship.', { pointer: '/ref' });
  const resource = typeOf(registry, ref.type, '/ref/type');
  const address: RecordAddress = { resource, ancestors: [], id: resolveIdentifier(ref, data.lids, '/ref') };
  if (ref.relationship !== undefined) {
    if (typeof ref.relationship !== 'string')
      throw badRequest('invalid_ref', 'ref.relationship must be a string.', { pointer: '/ref/relationship' });
    return { kind: 'relationship', op, address, name: ref.relationship, data: linkageWithIds(data) };
  }
  if (op === 'add')
    throw badRequest('invalid_operation', 'An add operation names a collection with href, or none; a ref names a relationship.', {
      pointer: '/ref',
    });
  if (op === 'remove') return { kind: 'delete', address: noData(data, address) };
  return { kind: 'update', address, data: updateData(data) };
}

/**
 * The collection a new record without an href goes to: the tenant's at the root, otherwise under
 * the parent its `relationships` names (which may be a record an earlier operation created).
 */
function collectionOfParent(registry: Registry, resource: ResourceDeclaration, data: Record<string, unknown>): CollectionAddress {
  const parent = registry.parentOf(resource);
  if (parent === undefined || resource.parent === undefined) return { resource, ancestors: [] };
  const pointer = `/data/relationships/${resource.parent}`;
  const relationships = isObject(data.relationships) ? data.relationships : {};
  const member = relationships[resource.parent];
  const linkage = isObject(member) ? member.data : undefined;
  if (!isObject(linkage)) {
    throw badRequest('invalid_operation', `An add without href names the ${parent.type} the ${resource.type} goes to in ${pointer}.`, {
      pointer,
    });
  }
  if (linkage.type !== parent.type)
    throw invalidValue(`Relationship ${resource.parent} links ${parent.type} records.`, { pointer: `${pointer}/data/type` });
  return { resource, ancestors: [{ resource: parent, id: requireId(linkage.id, `${pointer}/data/id`) }] };
}

/** The local id a new record takes, which no earlier operation may have taken. */
function newLocalId(data: Record<string, unknown>, lids: LocalIds): string | undefined {
  if (data.lid === undefined) return undefined;
  if (typeof data.lid !== 'string' || data.lid === '')
    throw badRequest('invalid_lid', 'data.lid must be a non-empty string.', { pointer: '/data/lid' });
  if (lids.has(data.lid))
    throw badRequest('invalid_lid', `The local id ${data.lid} is taken by an earlier operation.`, { pointer: '/data/lid' });
  return data.lid;
}

/** The resource object of an update, naming its record by id even when it was sent with a local id. */
function updateData(data: OperationData): Record<string, unknown> {
  const resource = resourceWithIds(data);
  if (resource.lid === undefined) return resource;
  const { lid: _lid, ...rest } = resource;
  return { ...rest, id: resolveIdentifier(resource, data.lids, '/data') };
}

/** The resource object of an operation, each of its relationships' linkage naming records by id. */
function resourceWithIds({ value, lids }: OperationData): Record<string, unknown> {
  if (!isObject(value))
    throw badRequest('invalid_document', 'The operation must have a data member holding one resource object.', { pointer: '/data' });
  if (!isObject(value.relationships)) return value;
  // Built from entries, so that every name stays an own member, `__proto__` too, and is judged as sent.
  const relationships = Object.fromEntries(
    Object.entries(value.relationships).map(([name, member]) => [
      name,
      isObject(member) && Object.hasOwn(member, 'data')
        ? { ...member, data: identifiersWithIds(member.data, lids, `/data/relationships/${name}/data`) }
        : member,
    ]),
  );
  return { ...value, relationships };
}

/** The linkage a relationship operation sets, naming records by id. */
function linkageWithIds({ present, value, lids }: OperationData): unknown {
  if (!present) throw badRequest('invalid_operation', 'A relationship operation carries its linkage in data.', { pointer: '/data' });
  return identifiersWithIds(value, lids, '/data');
}

/** Resource identifiers (one, an array, or null) with `{type, lid}` replaced by `{type, id}`. */
function identifiersWithIds(linkage: unknown, lids: LocalIds, pointer: string): unknown {
  if (Array.isArray(linkage)) return linkage.map((item, index) => identifiersWithIds(item, lids, `${pointer}/${index}`));
  if (!isObject(linkage) || linkage.lid === undefined) return linkage;
  const { lid: _lid, ...rest } = linkage;
  return { ...rest, id: resolveIdentifier(linkage, lids, pointer) };
}

/** The id an identifier (`{type, id}` or `{type, lid}`) names. */
function resolveIdentifier(identifier: Record<string, unknown>, lids: LocalIds, pointer: string): string {
  if (identifier.id !== undefined && identifier.lid !== undefined) {
    throw badRequest('invalid_lid', 'An identifier has an id or a lid, not both.', { pointer: `${pointer}/lid` });
  }
  if (identifier.lid === undefined) return requireId(identifier.id, `${pointer}/id`);
  const lid = identifier.lid;
  const known = typeof lid === 'string' ? lids.get(lid) : undefined;
  if (typeof lid !== 'string' || known === undefined) {
    throw badRequest('invalid_lid', `No earlier operation created a record with the local id ${JSON.stringify(lid)}.`, {
      pointer: `${pointer}/lid`,
    });
  }
  if (identifier.type !== known.type) {
    throw invalidValue(`The local id ${lid} names a ${known.type}, not a ${JSON.stringify(identifier.type)}.`, {
      pointer: `${pointer}/type`,
    });
  }
  return known.id;
}

/** A remove of a record carries no data (or null). */
function noData<T>(data: OperationData, target: T): T {
  if (data.present && data.value !== null)
    throw badRequest('invalid_operation', 'A remove operation of a record carries no data.', { pointer: '/data' });
  return target;
}

function typeOf(registry: Registry, type: unknown, pointer: string): ResourceDeclaration {
  const resource = typeof type === 'string' ? registry.get(type) : undefined;
  if (resource === undefined)
    throw badRequest('invalid_type', `${pointer.slice(1).replace('/', '.')} must name a type of this API.`, { pointer });
  return resource;
}

function requireId(id: unknown, pointer: string): string {
  if (typeof id !== 'string' || id === '')
    throw badRequest('invalid_document', `${pointer.slice(1).replace(/\//g, '.')} must be a non-empty string.`, { pointer });
  return id;
}

/**
 * An update whose href is a collection's, naming its record by `data.id`, as Terrakube's web UI
 * saves a webhook: only for a resource that declares it; undefined otherwise, for the 404 any other
 * href without a record gets.
 */
function updateAtCollection(hrefs: HrefResolver, href: string, data: OperationData): OperationPlan | undefined {
  const collection = hrefs.resolve(href, ['create']);
  if (collection?.route.mount.resource.atomicForms?.updateAtCollection !== true) return undefined;
  const resourceData = updateData(data);
  const id = requireId(resourceData.id, '/data/id');
  return { kind: 'update', address: { ...collectionAt(collection.route.mount, collection.params), id }, data: resourceData };
}

/**
 * The `relationships` member beside `data` that Elide reads and Terrakube's web UI sends when it
 * saves a webhook: taken only on an add or update of a record whose resource declares the
 * relationships (`atomicForms`), each a to-many linkage of identifiers of the listed type. The
 * records stay those their own operations create, change and delete under the record. Anywhere else
 * the member is unknown, as every member outside the extension is.
 */
function checkRelationshipsBesideData(registry: Registry, plan: OperationPlan, member: unknown): void {
  const resource = plan.kind === 'create' ? plan.collection.resource : plan.kind === 'update' ? plan.address.resource : undefined;
  const allowed = resource?.atomicForms?.relationshipsBesideData ?? [];
  if (resource === undefined || allowed.length === 0)
    throw badRequest('invalid_operation', `Unknown operation member ${besideData}.`, { pointer: `/${besideData}` });
  if (!isObject(member))
    throw badRequest('invalid_operation', `${besideData} is an object of relationships.`, { pointer: `/${besideData}` });
  for (const [name, relationship] of Object.entries(member)) {
    const pointer = `/${besideData}/${name}`;
    const declared = registry.relationship(resource, name);
    if (declared === undefined || !allowed.includes(name)) {
      const detail = `${besideData} beside data holds ${allowed.join(', ')} of a ${resource.type}, not ${name}.`;
      throw badRequest('invalid_operation', detail, { pointer });
    }
    const linkage = isObject(relationship) ? relationship.data : undefined;
    if (!Array.isArray(linkage))
      throw badRequest('invalid_operation', `Relationship ${name} is {"data": [{"type", "id"}, ...]}.`, { pointer: `${pointer}/data` });
    for (const [index, identifier] of linkage.entries()) {
      const at = `${pointer}/data/${index}`;
      if (!isObject(identifier) || typeof identifier.id !== 'string' || identifier.id === '')
        throw badRequest('invalid_operation', 'A member of the linkage is {"type", "id"}.', { pointer: at });
      if (identifier.type !== declared.type)
        throw invalidValue(`Relationship ${name} links ${declared.type} records.`, { pointer: `${at}/type` });
    }
  }
}

import { noIncludes, type Session } from '../engine/index.js';
import type { Registry } from '../model/index.js';
import { ApiError, badRequest } from '../errors.js';
import { planOperation, type LocalIds, type OperationPlan } from './atomic-operation.js';
import { inDocument, placeInDocument } from './errors.js';
import type { JsonApiResponse } from './handlers.js';
import { HrefResolver } from './href.js';
import { atomicMediaType } from './media-type.js';
import { isObject, parseLinkageDocument, parseResourceDocument } from './request-document.js';
import type { Route } from './routes.js';
import { toResourceObject, type ResourceObject } from './serialize.js';

/**
 * The most operations one request may carry: every one runs in the same transaction, which holds
 * its records (and on SQLite every write) until the last one is done.
 */
export const maxAtomicOperations = 100;

/** An operation's result: the record an add created, as stored (a lid names it only inside the request), or nothing. */
type AtomicResult = { data: ResourceObject } | Record<string, never>;

/**
 * JSON:API Atomic Operations (https://jsonapi.org/ext/atomic): a list of add, update and remove
 * operations on records and relationships, run in order in one transaction through the same engine
 * operations as the other routes, so each has the same checks, and all of them take effect or none
 * does. The first failure answers for the batch, its pointers leading into the failed operation
 * (`/atomic:operations/1/data/attributes/name`).
 */
export class AtomicOperations {
  private readonly hrefs: HrefResolver;

  constructor(
    private readonly registry: Registry,
    routes: readonly Route[],
  ) {
    this.hrefs = new HrefResolver(routes);
  }

  /** Runs the operations of a request's body, whose media types were checked as it arrived (checkMediaTypes). */
  async serve(session: Session, body: unknown): Promise<JsonApiResponse> {
    const operations = operationsOf(body);
    const results = await session.batch(async (batch) => {
      const lids: LocalIds = new Map();
      const done: AtomicResult[] = [];
      for (const [index, operation] of operations.entries()) {
        try {
          done.push(await this.run(batch, operation, lids));
        } catch (error) {
          throw inOperation(error, index);
        }
      }
      return done;
    });
    return { status: 200, body: { 'atomic:results': results }, headers: { 'content-type': atomicMediaType } };
  }

  private async run(batch: Session, operation: unknown, lids: LocalIds): Promise<AtomicResult> {
    const { registry } = this;
    const plan: OperationPlan = planOperation(registry, this.hrefs, operation, lids);
    switch (plan.kind) {
      case 'create': {
        const { resource } = plan.collection;
        const readInput = () => parseResourceDocument({ data: plan.data }, resource, { action: 'create' });
        const { row } = await batch.create(plan.collection, readInput, noIncludes);
        const data = toResourceObject(resource, row, new Map(), undefined);
        if (plan.lid !== undefined) lids.set(plan.lid, { type: resource.type, id: data.id });
        return { data };
      }
      case 'update': {
        const { address } = plan;
        const readInput = () => parseResourceDocument({ data: plan.data }, address.resource, { action: 'update', id: address.id });
        await batch.update(address, readInput);
        return {};
      }
      case 'delete':
        await batch.delete(plan.address);
        return {};
      case 'relationship': {
        const relationship = batch.relationship(plan.address.resource, plan.name);
        if (plan.op !== 'update' && relationship.kind === 'toOne') {
          throw badRequest('invalid_operation', `add and remove change to-many relationships; ${plan.name} is to-one: use update.`, {
            pointer: '/op',
          });
        }
        // Members of a to-many relationship are refused (403) once the record is found and writable, as on its URL.
        try {
          if (plan.op === 'update') await batch.link(plan.address, plan.name, () => parseLinkageDocument({ data: plan.data }));
          else await batch.changeMembers(plan.address, plan.name);
        } catch (error) {
          throw inDocument(error, 'linkage');
        }
        return {};
      }
    }
  }
}

/** The operations of an atomic document, which carries no primary data of its own. */
function operationsOf(body: unknown): unknown[] {
  if (!isObject(body)) throw badRequest('invalid_document', 'The request body must be a JSON:API document with atomic:operations.');
  for (const member of ['data', 'included', 'atomic:results']) {
    if (Object.hasOwn(body, member)) {
      throw badRequest('invalid_document', `An atomic operations document has no ${member} member.`, { pointer: `/${member}` });
    }
  }
  const operations = body['atomic:operations'];
  if (!Array.isArray(operations) || operations.length === 0) {
    throw badRequest('invalid_document', 'atomic:operations must be a non-empty array of operations.', { pointer: '/atomic:operations' });
  }
  if (operations.length > maxAtomicOperations) {
    throw badRequest('too_many_operations', `A request carries at most ${maxAtomicOperations} operations; send the rest in another.`, {
      pointer: '/atomic:operations',
    });
  }
  return operations;
}

/** An error of one operation, its pointers leading into that operation; a query parameter has no place there. */
function inOperation(error: unknown, index: number): unknown {
  if (!(error instanceof ApiError)) return error;
  const prefix = `/atomic:operations/${index}`;
  return error.replaced((at) => {
    const placed = at === undefined ? undefined : placeInDocument(at, 'resource', prefix);
    return placed === undefined || !('pointer' in placed) ? { pointer: prefix } : placed;
  });
}

import type { ResourceDeclaration, SecretReader } from '../model/index.js';
import type { HeldRecord } from '../policy/capabilities.js';
import { findVisible } from './queries.js';
import { CreatePlan, type TenantId } from './create-plan.js';
import { recordInput, type InputReader, type RecordInput } from './input.js';
import { locateRecord, tenantIdOf, type CollectionAddress, type RecordAddress } from './locate.js';
import { linkedRecord, linkFromPath } from './path-link.js';
import type { Scope } from './scope.js';
import { openedRecord } from './seal.js';
import { authorizeOn, authorizeWrite } from './write-authorization.js';

/*
 * The slow work a resource needs before it is written (reading a repository: `prepare` in its
 * declaration) holds no transaction, so the database is never held while the network answers. It
 * runs first, behind the write's own guards, which the write's transaction then passes again.
 */

/** A create's guards: the caller may create here (403), and the input is valid (400, 422). */
export async function guardCreate(
  tx: Scope,
  collection: CollectionAddress,
  plan: CreatePlan,
  readInput: InputReader,
): Promise<{ id: string | undefined; input: Omit<RecordInput, 'id'> }> {
  const { resource } = collection;
  const linked = await linkedRecord(tx, collection);
  // Grants on the parent count (a workspace's, for its variables): the new record lives in it;
  // or on the record the path links it to, through which grants reach it.
  const place = async () => {
    if (linked !== undefined) return linked.held;
    if (resource.grantsThrough !== undefined) return linkedByInput(tx, resource, resource.grantsThrough, readInput);
    const parent = await plan.parent();
    const step = collection.ancestors.at(-1);
    return step === undefined || parent === undefined ? undefined : { resource: step.resource, row: parent };
  };
  await authorizeWrite(tx, resource, 'create', { tenantId: plan.tenantId, place, grants: linked?.grants });
  const { id, ...input } = recordInput(tx.engine, resource, readInput(), { action: 'create' });
  if (linked !== undefined) linkFromPath(resource, input.relationships, linked);
  return { id, input };
}

/** What the resource's `prepare` makes of a create, once its guards pass; undefined without one. */
export async function prepareCreate(scope: Scope, collection: CollectionAddress, readInput: InputReader, id: string): Promise<unknown> {
  const { resource } = collection;
  if (resource.prepare === undefined) return undefined;
  const plan = new CreatePlan(scope, collection, id);
  const { input } = await plan.guard(() => guardCreate(scope, collection, plan, readInput));
  return resource.prepare({ values: input.attributes, links: input.relationships, current: undefined }, secretReader(scope, plan.tenantId));
}

/** What the resource's `prepare` makes of an update, once its guards pass; undefined without one. */
export async function prepareUpdate(scope: Scope, address: RecordAddress, readInput: InputReader): Promise<unknown> {
  const { resource } = address;
  if (resource.prepare === undefined) return undefined;
  const row = await locateRecord(scope, address);
  const tenantId: TenantId = () => tenantIdOf(scope, resource, row);
  await authorizeOn(scope, resource, row, tenantId, 'update');
  const input = recordInput(scope.engine, resource, readInput(), { action: 'update', id: String(row.id) });
  return resource.prepare({ values: input.attributes, links: input.relationships, current: row }, secretReader(scope, tenantId));
}

/**
 * The record a create's input links through `name`, as the caller sees it: where the grants of a
 * resource that takes them through that link are held (the input is checked in full afterwards).
 */
async function linkedByInput(
  tx: Scope,
  resource: ResourceDeclaration,
  name: string,
  readInput: InputReader,
): Promise<HeldRecord | undefined> {
  const draft = readInput().relationships[name];
  const link = tx.engine.registry.relationship(resource, name);
  if (draft?.kind !== 'record' || link?.kind !== 'toOne') return undefined;
  const target = tx.engine.registry.target(link);
  const row = await findVisible(tx, target, draft.id);
  return row === undefined ? undefined : { resource: target, row };
}

function secretReader(scope: Scope, tenantId: TenantId): SecretReader {
  return { withSecrets: async (target: ResourceDeclaration, id: string) => openedRecord(scope, target, id, await tenantId()) };
}

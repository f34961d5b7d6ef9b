import { noIncludes, type PathStep, type RecordAddress } from '../engine/index.js';
import { ApiError } from '../errors.js';
import type { Registry, Relationship, ResourceDeclaration, Row, ToOne } from '../model/index.js';
import { dataRecords, idsOf, type FieldArguments, type InputRecord, type Operation } from './arguments.js';
import { emptyConnection, type ConnectionValue, type NodeValue, type RequestContext } from './context.js';
import { recordDraft } from './input.js';

type WriteOperation = Exclude<Operation, 'FETCH'>;

/**
 * A write on a root field. UPSERT creates each record of `data` without an id (a record that lives
 * under a parent names it in its parent relationship, `organization: {id: "..."}`) and updates each
 * one with an id; UPDATE updates; DELETE and REMOVE delete the records of `ids`. The answer lists
 * the records written, each as it now reads; nothing for a delete.
 */
export function mutateRoot(context: RequestContext, resource: ResourceDeclaration, op: WriteOperation, args: FieldArguments) {
  return context.run(async () => {
    if (op === 'DELETE' || op === 'REMOVE') {
      for (const id of idsOf(args)) {
        context.countWrite();
        await context.session.delete({ resource, ancestors: [], id });
      }
      return emptyConnection(resource);
    }
    const rows: Row[] = [];
    for (const record of dataRecords(args)) {
      context.countWrite();
      const id = idIn(record);
      if (op === 'UPDATE') rows.push(await update(context, { resource, ancestors: [], id: required(id, op) }, record));
      else rows.push(await upsert(context, resource, id === undefined ? parentFromData(context.registry, resource, record) : [], record));
    }
    return written(resource, rows);
  });
}

/**
 * A write through a relationship of a record. On the records a record holds (an organization's
 * workspaces), UPSERT creates them under it and UPSERT or UPDATE change them, DELETE deletes them;
 * they never move to another parent (REMOVE, 403). Other to-many relationships change through the
 * records they list (403). A to-one relationship links an existing record (UPSERT with its id, its
 * attributes changed too when given), changes the linked record (UPDATE), unlinks it (REMOVE) or
 * deletes it (DELETE).
 */
export function mutateRelated(
  context: RequestContext,
  owner: NodeValue,
  name: string,
  relationship: Relationship,
  op: WriteOperation,
  args: FieldArguments,
) {
  return context.run(async () => {
    const { registry } = context;
    const target = registry.target(relationship);
    const ownerAddress: RecordAddress = { resource: owner.resource, ancestors: [], id: String(owner.row.id) };
    if (relationship.kind === 'toOne') {
      context.countWrite();
      return writeLink(context, ownerAddress, name, relationship, op, args);
    }
    const holds =
      relationship.kind === 'toMany' &&
      registry.parentOf(target) === owner.resource &&
      registry.parentLink(target)?.column === relationship.column;
    // Any other to-many relationship changes through the records it lists, a many-to-many one through
    // its owner's input (the whole list): the engine refuses to change its members one by one.
    if (!holds) {
      await context.session.changeMembers(ownerAddress, name);
      return emptyConnection(target);
    }
    const ancestors: PathStep[] = [{ resource: owner.resource, id: ownerAddress.id }];
    switch (op) {
      case 'REMOVE':
        // Taking a record out of its parent's list moves it out of its parent, which the engine refuses.
        for (const id of idsOf(args)) {
          const parent = target.parent ?? '';
          await context.session.link({ resource: target, ancestors, id }, parent, () => null);
        }
        return emptyConnection(target);
      case 'DELETE':
        for (const id of idsOf(args)) {
          context.countWrite();
          await context.session.delete({ resource: target, ancestors, id });
        }
        return emptyConnection(target);
      case 'UPDATE':
      case 'UPSERT': {
        const rows: Row[] = [];
        for (const record of dataRecords(args)) {
          context.countWrite();
          const id = idIn(record);
          if (op === 'UPDATE') rows.push(await update(context, { resource: target, ancestors, id: required(id, op) }, record));
          else rows.push(await upsert(context, target, ancestors, record));
        }
        return written(target, rows);
      }
    }
  });
}

async function writeLink(
  context: RequestContext,
  owner: RecordAddress,
  name: string,
  relationship: ToOne,
  op: WriteOperation,
  args: FieldArguments,
): Promise<ConnectionValue> {
  const { session } = context;
  const target = context.registry.target(relationship);
  const linked = (id: string): RecordAddress => ({ resource: target, through: { record: owner, relationship }, id });
  if (op === 'REMOVE' || op === 'DELETE') {
    const id = (await session.find(owner))[relationship.column];
    if (op === 'REMOVE') await session.link(owner, name, () => null);
    else if (typeof id === 'string') await session.delete(linked(id));
    return emptyConnection(target);
  }
  const [record] = dataRecords(args);
  if (record === undefined || dataRecords(args).length > 1) throw invalidData(`A to-one relationship takes one record in data.`);
  const id = idIn(record);
  if (id === undefined) throw invalidData(`Relationship ${name} links an existing ${target.type}: give its id.`);
  if (op === 'UPSERT') await session.link(owner, name, () => ({ type: target.type, id }));
  const changes = Object.keys(record).some((key) => key !== 'id');
  if (changes || op === 'UPDATE') return written(target, [await update(context, linked(id), record)]);
  return written(target, [await session.find(linked(id))]);
}

/** Creates a record without an id; updates the record with an id, which must exist at the address. */
async function upsert(
  context: RequestContext,
  resource: ResourceDeclaration,
  ancestors: readonly PathStep[],
  record: InputRecord,
): Promise<Row> {
  const id = idIn(record);
  // A record given with an id that names none is a create under an id the client chose, as Elide
  // has it; the engine refuses that, since Stratum assigns every id itself.
  if (id === undefined || !(await exists(context, { resource, ancestors, id }))) {
    const readInput = () => recordDraft(context.registry, resource, record);
    return (await context.session.create({ resource, ancestors }, readInput, noIncludes)).row;
  }
  return update(context, { resource, ancestors, id }, record);
}

async function update(context: RequestContext, address: RecordAddress, record: InputRecord): Promise<Row> {
  const readInput = () => recordDraft(context.registry, address.resource, record);
  await context.session.update(address, readInput);
  return context.session.find(address);
}

async function exists(context: RequestContext, address: RecordAddress): Promise<boolean> {
  try {
    await context.session.find(address);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return false;
    throw error;
  }
}

/** The parent a new record names in its data, since a root field has no parent record of its own. */
function parentFromData(registry: Registry, resource: ResourceDeclaration, record: InputRecord): PathStep[] {
  const link = registry.parentLink(resource);
  if (link === undefined || resource.parent === undefined) return [];
  const parent = record[resource.parent] as InputRecord | null | undefined;
  if (typeof parent?.id !== 'string' || parent.id === '') {
    throw new ApiError(422, {
      code: 'required',
      detail: `A new ${resource.type} names its ${link.type} in data: ${resource.parent}: {id: "..."}.`,
      at: { relationship: resource.parent },
    });
  }
  return [{ resource: registry.target(link), id: parent.id }];
}

const idIn = (record: InputRecord): string | undefined => (typeof record.id === 'string' && record.id !== '' ? record.id : undefined);

function required(id: string | undefined, op: WriteOperation): string {
  if (id === undefined) throw invalidData(`${op} data objects must include ids.`);
  return id;
}

const invalidData = (detail: string) => new ApiError(400, { code: 'invalid_argument', detail, at: { argument: 'data' } });

const written = (resource: ResourceDeclaration, rows: Row[]): ConnectionValue => ({
  resource,
  rows,
  offset: 0,
  hasMore: false,
  total: rows.length,
});

import type { Scope } from '../engine/engine.js';
import { locateRecord, type PathStep, type RecordAddress } from '../engine/locate.js';
import { noIncludes } from '../engine/options.js';
import { updateRelationship } from '../engine/relationships.js';
import { createRecord, deleteRecord, updateRecord } from '../engine/write.js';
import { ApiError, forbidden } from '../errors.js';
import type { ResourceDeclaration, Row, ToMany, ToOne } from '../model/index.js';
import { dataRecords, idsOf, type FieldArguments, type InputRecord, type Operation } from './arguments.js';
import { emptyConnection, type ConnectionValue, type NodeValue, type RequestContext } from './context.js';
import { readRecordInput } from './input.js';

type WriteOperation = Exclude<Operation, 'FETCH'>;

/**
 * A write on a root field. UPSERT creates each record of `data` without an id (a record that lives
 * under a parent names it in its parent relationship, `organization: {id: "..."}`) and updates each
 * one with an id; UPDATE updates; DELETE and REMOVE delete the records of `ids`. The answer lists
 * the records written, each as it now reads; nothing for a delete.
 */
export function mutateRoot(context: RequestContext, resource: ResourceDeclaration, op: WriteOperation, args: FieldArguments) {
  return context.run(async () => {
    const { scope } = context;
    if (op === 'DELETE' || op === 'REMOVE') {
      for (const id of idsOf(args)) {
        context.countWrite();
        await deleteRecord(scope, { resource, ancestors: [], id });
      }
      return emptyConnection(resource);
    }
    const rows: Row[] = [];
    for (const record of dataRecords(args)) {
      context.countWrite();
      const id = idIn(record);
      if (op === 'UPDATE') rows.push(await update(scope, { resource, ancestors: [], id: required(id, op) }, record));
      else rows.push(await upsert(scope, resource, id === undefined ? parentFromData(scope, resource, record) : [], record));
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
  relationship: ToOne | ToMany,
  op: WriteOperation,
  args: FieldArguments,
) {
  return context.run(async () => {
    const { scope } = context;
    const target = scope.engine.registry.target(relationship);
    const ownerAddress: RecordAddress = { resource: owner.resource, ancestors: [], id: String(owner.row.id) };
    if (relationship.kind === 'toOne') {
      context.countWrite();
      return writeLink(scope, ownerAddress, name, relationship, op, args);
    }
    const holds =
      scope.engine.registry.parentOf(target) === owner.resource && scope.engine.registry.parentLink(target)?.column === relationship.column;
    if (!holds)
      throw forbidden(`Relationship ${name} of ${owner.resource.type} is changed through the records it lists, not replaced as a whole.`);
    const ancestors: PathStep[] = [{ resource: owner.resource, id: ownerAddress.id }];
    switch (op) {
      case 'REMOVE':
        throw forbidden(`A ${target.type} never moves to another ${owner.resource.type}; delete it instead.`);
      case 'DELETE':
        for (const id of idsOf(args)) {
          context.countWrite();
          await deleteRecord(scope, { resource: target, ancestors, id });
        }
        return emptyConnection(target);
      case 'UPDATE':
      case 'UPSERT': {
        const rows: Row[] = [];
        for (const record of dataRecords(args)) {
          context.countWrite();
          const id = idIn(record);
          if (op === 'UPDATE') rows.push(await update(scope, { resource: target, ancestors, id: required(id, op) }, record));
          else rows.push(await upsert(scope, target, ancestors, record));
        }
        return written(target, rows);
      }
    }
  });
}

async function writeLink(
  scope: Scope,
  owner: RecordAddress,
  name: string,
  relationship: ToOne,
  op: WriteOperation,
  args: FieldArguments,
): Promise<ConnectionValue> {
  const target = scope.engine.registry.target(relationship);
  const linked = (id: string): RecordAddress => ({ resource: target, through: { record: owner, relationship }, id });
  if (op === 'REMOVE' || op === 'DELETE') {
    const id = (await locateRecord(scope, owner))[relationship.column];
    if (op === 'REMOVE') await updateRelationship(scope, owner, name, relationship, () => null);
    else if (typeof id === 'string') await deleteRecord(scope, linked(id));
    return emptyConnection(target);
  }
  const [record] = dataRecords(args);
  if (record === undefined || dataRecords(args).length > 1) throw invalidData(`A to-one relationship takes one record in data.`);
  const id = idIn(record);
  if (id === undefined) throw invalidData(`Relationship ${name} links an existing ${target.type}: give its id.`);
  if (op === 'UPSERT') await updateRelationship(scope, owner, name, relationship, () => ({ type: target.type, id }));
  const changes = Object.keys(record).some((key) => key !== 'id');
  if (changes || op === 'UPDATE') return written(target, [await update(scope, linked(id), record)]);
  return written(target, [await locateRecord(scope, linked(id))]);
}

/** Creates a record without an id; updates the record with an id, which must exist at the address. */
async function upsert(scope: Scope, resource: ResourceDeclaration, ancestors: readonly PathStep[], record: InputRecord): Promise<Row> {
  const id = idIn(record);
  if (id === undefined) {
    const readInput = () => readRecordInput(scope.engine.registry, resource, record, { action: 'create' });
    return (await createRecord(scope, { resource, ancestors }, readInput, noIncludes)).row;
  }
  const address: RecordAddress = { resource, ancestors, id };
  if (!(await exists(scope, address))) {
    // Elide creates a record under an id the client chose; Stratum assigns every id itself.
    throw forbidden('Client-generated ids are not supported; leave id out and the server assigns one.');
  }
  return update(scope, address, record);
}

async function update(scope: Scope, address: RecordAddress, record: InputRecord): Promise<Row> {
  const readInput = () => readRecordInput(scope.engine.registry, address.resource, record, { action: 'update', id: address.id });
  await updateRecord(scope, address, readInput);
  return locateRecord(scope, address);
}

async function exists(scope: Scope, address: RecordAddress): Promise<boolean> {
  try {
    await locateRecord(scope, address);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return false;
    throw error;
  }
}

/** The parent a new record names in its data, since a root field has no parent record of its own. */
function parentFromData(scope: Scope, resource: ResourceDeclaration, record: InputRecord): PathStep[] {
  const link = scope.engine.registry.parentLink(resource);
  if (link === undefined || resource.parent === undefined) return [];
  const parent = record[resource.parent] as InputRecord | null | undefined;
  if (typeof parent?.id !== 'string' || parent.id === '') {
    throw new ApiError(422, {
      code: 'required',
      detail: `A new ${resource.type} names its ${link.type} in data: ${resource.parent}: {id: "..."}.`,
      at: { relationship: resource.parent },
    });
  }
  return [{ resource: scope.engine.registry.target(link), id: parent.id }];
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

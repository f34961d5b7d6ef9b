import { auditName } from '../auth/caller.js';
import { notFound } from '../errors.js';
import {
  auditColumns,
  columnOf,
  toColumns,
  type AttributeValues,
  type ResourceDeclaration,
  type Row,
  type WriteContext,
} from '../model/index.js';
import type { WriteAction } from '../policy/rules.js';
import { newRecordId } from '../store/record-id.js';
import { inOneStatement, inTransaction, type Scope } from './scope.js';
import { defaultOf } from './attribute-values.js';
import { recordInput, type InputReader, type RecordInput } from './input.js';
import { CreatePlan, noTenant, type TenantId } from './create-plan.js';
import { locateRecord, tenantIdOf, type CollectionAddress, type RecordAddress } from './locate.js';
import { authorizeOn, authorizeUpdateEffects, holdsOn } from './write-authorization.js';
import { nextSequenceId } from './sequence.js';
import type { ReadOptions } from './options.js';
import { insertRow } from './queries.js';
import { withIncluded, type RecordResult } from './read.js';
import { openedRecord, sealSecrets } from './seal.js';
import { checkPrecondition, type Precondition } from './versions.js';
import { guardCreate, prepareCreate, prepareUpdate } from './write-preparation.js';
import { writeMembers } from './members.js';
import { insertKept } from './kept-rows.js';
import { changedAttributes, changeUnit, createdIn, organizationOf, recordChange } from './changes.js';
import { checkIdAttributes, linkColumns } from './link-checks.js';

/**
 * Creates a record in a collection: the parent must be visible (404), the write allowed (403), the
 * input valid (400, 422); then the row is inserted and the resource's hooks run. How the parent is
 * found is the plan's business (create-plan.ts).
 */
export async function createRecord(
  scope: Scope,
  collection: CollectionAddress,
  readInput: InputReader,
  options: ReadOptions,
): Promise<RecordResult> {
  const { resource } = collection;
  // The server's id for the record, unless the resource takes ids from clients and the input gives one.
  const generated = newRecordId();
  // One INSERT with its change row needs no transaction of its own on PostgreSQL: the parent's
  // foreign key stops a record from outliving a parent deleted meanwhile (404). A resource whose
  // hooks write more records gets one, so all or none land. So does one whose lists of records live
  // in tables of their own, or whose id a sequence gives.
  const atomic =
    resource.afterCreate !== undefined ||
    resource.sequenceIds === true ||
    Object.values(resource.relationships).some((r) => r.kind === 'manyToMany');
  const prepared = await prepareCreate(scope, collection, readInput, generated);
  const row = await inOneStatement(scope, resource, !atomic, async (tx, single) => {
    const plan = new CreatePlan(tx, collection, generated);
    const now = new Date().toISOString();
    let members: RecordInput['members'] = {};
    const columns = await plan.guard(async () => {
      const { id, input } = await guardCreate(tx, collection, plan, readInput);
      members = input.members;
      const assigned = resource.sequenceIds === true ? await nextSequenceId(tx, resource) : generated;
      const record = { id: id ?? assigned, parentId: collection.ancestors.at(-1)?.id, tenantId: plan.tenantId, ...input };
      return recordColumns(tx, resource, record, now);
    });
    if (single) {
      // The change row rides in the INSERT's own statement, which reads the organization itself.
      const change = { organizationId: undefined, type: resource.type, id: String(columns.id), action: 'create' as const };
      const attributes = changedAttributes(resource, undefined, columns);
      return plan.insert(resource, columns, changeUnit(tx).rowOf({ ...change, attributes }));
    }
    const inserted = await plan.insert(resource, columns);
    recordChange(tx, resource, {
      action: 'create',
      id: inserted.id,
      organizationId: createdIn(tx, collection, inserted),
      before: undefined,
      after: inserted,
    });
    await writeMembers(tx, { resource, row: inserted }, members, plan.tenantId);
    if (resource.afterCreate === undefined) return inserted;
    await resource.afterCreate(writeContext(tx, plan.tenantId, now), inserted, prepared);
    // The answer shows what the hook set on the record too (a module's latest version).
    return (await tx.db.selectFrom(resource.table).selectAll().where('id', '=', inserted.id).executeTakeFirst()) ?? inserted;
  });
  return withIncluded(scope, resource, row, options);
}

/** Changes the attributes and links an input sends; nothing else. */
export async function updateRecord(
  scope: Scope,
  address: RecordAddress,
  readInput: InputReader,
  precondition?: Precondition,
): Promise<void> {
  const { resource } = address;
  const prepared = await prepareUpdate(scope, address, readInput);
  await changeRecord(scope, address, 'update', precondition, async (tx, row, tenant) => {
    const input = recordInput(tx.engine, resource, readInput(), { action: 'update', id: String(row.id) });
    await authorizeUpdateEffects(tx, resource, row, tenant, input);
    const now = new Date().toISOString();
    await checkIdAttributes(tx, resource, input.attributes, { current: row, tenantId: tenant });
    const values = await prepareValues(tx, resource, { tenantId: tenant, now, values: input.attributes, current: row, id: row.id });
    const parentLink = tx.engine.registry.parentLink(resource);
    const parentId = parentLink === undefined ? undefined : row[parentLink.column];
    const columns: Row = {
      ...toColumns(resource, values),
      ...(await linkColumns(tx, resource, input.relationships, { parentId, tenantId: tenant })),
      ...auditColumns(auditName(tx.caller), now, 'update'),
    };
    await tx.db.updateTable(resource.table).set(columns).where('id', '=', row.id).execute();
    recordChange(tx, resource, {
      action: 'update',
      id: row.id,
      organizationId: await organizationOf(tx, resource, tenant),
      before: row,
      after: { ...row, ...columns },
    });
    await writeMembers(tx, { resource, row }, input.members, tenant);
    if (resource.afterUpdate !== undefined) {
      const changed = await tx.db.selectFrom(resource.table).selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
      await resource.afterUpdate(writeContext(tx, tenant, now), changed, prepared);
    }
  });
}

/** Deletes a record and everything under it. */
export async function deleteRecord(scope: Scope, address: RecordAddress, precondition?: Precondition): Promise<void> {
  await changeRecord(scope, address, 'delete', precondition, async (tx, row, tenant) => {
    // Children go with their parent through ON DELETE CASCADE, and links to it are cleared through
    // ON DELETE SET NULL, in this same statement: the change row of the record stands for them.
    await tx.db.deleteFrom(address.resource.table).where('id', '=', row.id).execute();
    recordChange(tx, address.resource, {
      action: 'delete',
      id: row.id,
      organizationId: await organizationOf(tx, address.resource, tenant),
      before: row,
      after: undefined,
    });
  });
}

/**
 * The guards every change of an existing record passes, in one transaction with the change: the
 * record is visible at its address (404), the caller may write it (403), and If-Match holds (412).
 */
export async function changeRecord(
  scope: Scope,
  address: RecordAddress,
  action: WriteAction,
  precondition: Precondition | undefined,
  change: (tx: Scope, row: Row, tenantId: TenantId) => Promise<void>,
): Promise<void> {
  await inTransaction(scope, address.resource, async (tx) => {
    const row = await locateRecord(tx, address, true);
    const tenantId = tenantOfRecord(tx, address.resource, row);
    await authorizeOn(tx, address.resource, row, tenantId, action);
    checkPrecondition(address.resource, row, precondition);
    await change(tx, row, tenantId);
  });
}

/** The tenant of a stored record, looked up when first asked for. */
function tenantOfRecord(tx: Scope, resource: ResourceDeclaration, row: Row): TenantId {
  let tenant: Promise<string> | undefined;
  return () => (tenant ??= tx.engine.registry.isGlobal(resource) ? Promise.reject(noTenant(resource)) : tenantIdOf(tx, resource, row));
}

interface NewRecord extends RecordInput {
  id: string;
  /** The parent's id; undefined for the tenant. */
  parentId: unknown;
  tenantId: TenantId;
}

/** The columns of a record whose input is valid and whose write is allowed: its hooks run, secrets sealed, audit columns set. */
async function recordColumns(tx: Scope, resource: ResourceDeclaration, record: NewRecord, now: string): Promise<Row> {
  await checkIdAttributes(tx, resource, record.attributes, { current: undefined, tenantId: record.tenantId });
  const values = await prepareValues(tx, resource, {
    tenantId: record.tenantId,
    now,
    values: record.attributes,
    current: undefined,
    id: record.id,
  });
  return {
    ...toColumns(resource, values),
    ...(await linkColumns(tx, resource, record.relationships, { parentId: record.parentId, tenantId: record.tenantId })),
    id: record.id,
    ...auditColumns(auditName(tx.caller), now, 'create'),
  };
}

/** What write hooks may do: read the tenant, and create records beside the one written. */
export function writeContext(tx: Scope, tenantId: TenantId, now: string): WriteContext {
  const { registry } = tx.engine;
  return {
    tenant: async () => {
      const id = await tenantId();
      const tenant = await tx.db.selectFrom(registry.tenant.table).selectAll().where('id', '=', id).executeTakeFirst();
      // Deleted by a request that committed after this write found its parent.
      if (tenant === undefined) throw notFound(registry.tenant.type, id);
      return tenant;
    },
    insert: async (resource, parentId, given, links = {}) => {
      const attributes: AttributeValues = {};
      for (const [name, attribute] of Object.entries(resource.attributes)) if (!attribute.readOnly) attributes[name] = defaultOf(attribute);
      const id = resource.sequenceIds === true ? await nextSequenceId(tx, resource) : newRecordId();
      const record = { id, parentId, tenantId, attributes: { ...attributes, ...given }, relationships: { ...links }, members: {} };
      const row = await insertRow(tx, resource, await recordColumns(tx, resource, record, now));
      if (row === undefined) throw new Error(`inserting into ${resource.table} returned no row`);
      recordChange(tx, resource, {
        action: 'create',
        id,
        organizationId: await organizationOf(tx, resource, tenantId),
        before: undefined,
        after: row,
      });
      await resource.afterCreate?.(writeContext(tx, tenantId, now), row, undefined);
      return id;
    },
    removeChildren: async (resource, parentId, keep = () => false) => {
      const rows = await tx.db.selectFrom(resource.table).selectAll().where(registry.parentColumn(resource), '=', parentId).execute();
      const gone = rows.filter((row) => !keep(row));
      if (gone.length === 0) return;
      await tx.db
        .deleteFrom(resource.table)
        .where(
          'id',
          'in',
          gone.map((row) => row.id),
        )
        .execute();
      const organizationId = await organizationOf(tx, resource, tenantId);
      for (const row of gone) recordChange(tx, resource, { action: 'delete', id: row.id, organizationId, before: row, after: undefined });
    },
    children: async (resource, parentId) =>
      tx.db.selectFrom(resource.table).selectAll().where(registry.parentColumn(resource), '=', parentId).execute(),
    set: async (resource, id, values) => {
      const before = await tx.db.selectFrom(resource.table).selectAll().where('id', '=', id).executeTakeFirst();
      if (before === undefined) return;
      const columns = toColumns(resource, values);
      await tx.db.updateTable(resource.table).set(columns).where('id', '=', id).execute();
      recordChange(
        tx,
        resource,
        { action: 'update', id, organizationId: await organizationOf(tx, resource, tenantId), before, after: { ...before, ...columns } },
        { unlessUnchanged: true },
      );
    },
    newest: async (resource, column, value) =>
      tx.db
        .selectFrom(resource.table)
        .selectAll()
        .where(column, '=', value)
        .orderBy('created_date', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst(),
    countUpTo: async (resource, where, among, limit) => {
      // Counting a bounded subquery reads at most `limit` rows, however many there are.
      const bounded = tx.db
        .selectFrom(resource.table)
        .select('id')
        .where(where.column, '=', where.value)
        .where(columnOf(among.attribute), 'in', [...among.values])
        .limit(limit)
        .as('bounded');
      const row = await tx.db
        .selectFrom(bounded)
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    withSecrets: async (resource, id) => openedRecord(tx, resource, id, await tenantId()),
    emit: (name, payload) => {
      if (tx.work === undefined) throw new Error(`${name} was emitted outside a write`);
      tx.work.emit(name, payload);
    },
    keep: async (kept, row) => {
      await insertKept(tx, kept, row, { organizationId: await tenantId() });
    },
  };
}

/** Runs the resource's own rules over the values of a write, then seals its secrets. */
async function prepareValues(
  tx: Scope,
  resource: ResourceDeclaration,
  write: { tenantId: TenantId; now: string; values: AttributeValues; current: Row | undefined; id: unknown },
): Promise<AttributeValues> {
  await resource.beforeWrite?.({
    ...writeContext(tx, write.tenantId, write.now),
    values: write.values,
    current: write.current,
    holds: (capability) => holdsOn(tx, resource, write.current, write.tenantId, capability),
  });
  sealSecrets(resource, write.values, write.current, write.id, tx.engine.cipher);
  return write.values;
}

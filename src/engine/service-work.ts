import type { Kysely } from 'kysely';
import type { KeptTable, ResourceDeclaration, Row, SecretReader, WriteContext } from '../model/index.js';
import { secretPlace } from '../secrets/cipher.js';
import type { Database } from '../store/database.js';
import { recordKeptChange } from './changes.js';
import { insertKept } from './kept-rows.js';
import { inTransaction, type Scope } from './scope.js';
import { openedRecord, openRow } from './seal.js';
import { jobHolder, releaseLockOf } from './state-lock.js';
import type { Transport } from './unit-of-work.js';
import { writeContext } from './write.js';

/**
 * The service's own work beside the requests (running jobs, firing schedules, recovering after a
 * stop), as the engine lends it to the folder that owns that work: reads of every record, and
 * writes that go through the unit of work like any request's, naming the job they are done for.
 * The work's bookkeeping tables (who holds a job, step logs, saved plans, schedule times) are its
 * owner's to write in the transactions it is given; declared records change only through
 * `records`, so their hooks, audit columns and change rows follow.
 */
export interface ServiceWork {
  /** Reads as the service: every record, outside any transaction. */
  readonly db: Kysely<Database>;
  /** One transaction with its unit of work; its changes name `jobId` when given. Runs again, whole, when it loses to a concurrent one. */
  transaction<T>(work: (tx: ServiceTransaction) => Promise<T>, jobId?: string): Promise<T>;
  /** The same work, as recovery after a stop names it. */
  asRecovery(): ServiceWork;
  /** A tenant's records with their secrets opened: a run's template, the VCS connection or SSH key its workspace links. */
  secrets(tenantId: string): SecretReader;
  /** A stored row with its secrets opened. */
  openRow(resource: ResourceDeclaration, row: Row): Row;
  /** Seals a value of a bookkeeping table at its place (table, column, row key). */
  seal(value: string, place: { table: string; column: string; key: string }): string;
  open(value: string, place: { table: string; column: string; key: string }): string;
  /** The column of `resource` naming its parent. */
  parentColumn(resource: ResourceDeclaration): string;
}

export interface ServiceTransaction {
  /** The transaction, for the owner's bookkeeping tables and its reads. */
  db: Kysely<Database>;
  /** Declared records of one organization, changed as a write's hooks change them: recorded, with the events they emit. */
  records(organizationId: string): WriteContext;
  /** Releases the state lock of a workspace that a job's run holds, if it still holds it. */
  releaseJobLock(place: { organizationId: string; workspaceId: string }, jobId: string): Promise<void>;
  /** Inserts a row of a kept table, recorded as `action` (in `organizationId`'s trail, or the instance's without one). */
  keep(kept: KeptTable, row: Row, change: { action: 'create' | 'issue'; organizationId: string | undefined }): Promise<void>;
  /** Records a change the owner made to a row of a kept table (a token revoked): the row before and after. */
  recordKept(kept: KeptTable, change: { action: 'update' | 'revoke'; organizationId: string | undefined; before: Row; after: Row }): void;
}

/** The engine's service work through `scope` (the service as the caller, `transport` as its provenance). */
export function serviceWork(scope: Scope, transport: Transport): ServiceWork {
  const at = { ...scope, provenance: { ...scope.provenance, transport } };
  const { engine } = scope;
  const cipher = () => {
    if (engine.cipher === undefined) throw new Error('service work sealing through an engine opened without the encryption key');
    return engine.cipher;
  };
  return {
    db: scope.db,
    transaction: (work, jobId) => {
      const scoped = jobId === undefined ? at : { ...at, provenance: { ...at.provenance, jobId } };
      return inTransaction(scoped, undefined, (tx) => work(serviceTransaction(tx)));
    },
    asRecovery: () => serviceWork(scope, 'recovery'),
    secrets: (tenantId) => ({ withSecrets: (resource, id) => openedRecord(at, resource, id, tenantId) }),
    openRow: (resource, row) => openRow(engine.cipher, resource, row),
    seal: (value, place) => cipher().seal(value, secretPlace(place.table, place.column, place.key)),
    open: (value, place) => cipher().open(value, secretPlace(place.table, place.column, place.key)),
    parentColumn: (resource) => engine.registry.parentColumn(resource),
  };
}

function serviceTransaction(tx: Scope): ServiceTransaction {
  const now = new Date().toISOString();
  return {
    db: tx.db,
    records: (organizationId) => writeContext(tx, () => Promise.resolve(organizationId), now),
    releaseJobLock: (place, jobId) => releaseLockOf(tx, place, jobHolder(jobId)),
    keep: async (kept, row, change) => {
      await insertKept(tx, kept, row, change);
    },
    recordKept: (kept, change) => recordKeptChange(tx, kept, change),
  };
}

import type { Kysely } from 'kysely';
import { ApiError, badRequest } from '../errors.js';
import type { Database } from '../model/index.js';
import type { KeptTable } from '../model/index.js';
import { deleteKept, insertKept } from './kept-rows.js';
import type { Scope } from './scope.js';
import type { Change } from './unit-of-work.js';

const lockTable = 'state_lock';

/** A workspace's state lock in the audit trail: its ID and holder; Terraform's lock info (a host, a path) stays out. */
const lockChanges: KeptTable = {
  table: lockTable,
  type: 'state lock',
  key: 'workspace_id',
  shown: { lockId: 'lock_id', lockedBy: 'locked_by' },
};

/** Where a lock is: its workspace, and the organization its changes are recorded in. */
export interface LockPlace {
  workspaceId: string;
  organizationId: Change['organizationId'];
}

/** The lock Terraform holds on a workspace's state: its ID, who took it, and the lock info it sent, as sent. */
export interface StateLock {
  id: string;
  who: string;
  /** Who took it: a caller's audit name, or a job's holder (`job:N`). */
  holder: string;
  info: string;
  created: string;
}

/**
 * A lock or unlock refused because another lock is held: the holder's lock info, which Terraform
 * shows ("already locked"), and the status it is answered with (423 to a lock, 409 to an unlock).
 */
export class LockHeld extends Error {
  constructor(
    readonly holder: StateLock,
    readonly status: 409 | 423,
  ) {
    super(`the state is locked by ${holder.id}`);
  }
}

export async function readLock(db: Kysely<Database>, workspaceId: string): Promise<StateLock | undefined> {
  const row = await db.selectFrom(lockTable).selectAll().where('workspace_id', '=', workspaceId).executeTakeFirst();
  if (row === undefined) return undefined;
  const info = String(row.info);
  return { id: String(row.lock_id), who: whoOf(info), holder: String(row.locked_by), info, created: String(row.created_date) };
}

/** The ID of Terraform's lock info JSON (`{"ID": ..., "Who": ...}`); 400 for a body that is not one. */
export function lockIdOf(info: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(info);
  } catch {
    throw badRequest('invalid_lock_info', 'The body is not Terraform lock info: it is not JSON.');
  }
  const id = typeof parsed === 'object' && parsed !== null ? (parsed as { ID?: unknown }).ID : undefined;
  if (typeof id !== 'string' || id === '' || id.length > 256)
    throw badRequest('invalid_lock_info', 'The body is not Terraform lock info: its "ID" is not a string of 1 to 256 characters.');
  return id;
}

function whoOf(info: string): string {
  try {
    const who = (JSON.parse(info) as { Who?: unknown }).Who;
    return typeof who === 'string' ? who : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Takes the lock, or throws LockHeld with the holder's (a lock already held under the same ID included). */
export async function acquireLock(tx: Scope, place: LockPlace, info: string, lockedBy: string): Promise<void> {
  const id = lockIdOf(info);
  const row = { workspace_id: place.workspaceId, lock_id: id, info, locked_by: lockedBy, created_date: new Date().toISOString() };
  if (await insertKept(tx, lockChanges, row, { organizationId: place.organizationId, unlessTaken: true })) return;
  // Held already, under the same ID too: Terraform never locks twice with one ID, and taking it
  // again would let two processes believe they hold one lock.
  const held = await readLock(tx.db, place.workspaceId);
  if (held === undefined) throw new ApiError(409, { code: 'lock_contended', detail: 'The lock was released while it was taken; retry.' });
  throw new LockHeld(held, 423);
}

/**
 * Releases the lock: the holder's own unlock names its ID (409 with the holder's info when another
 * is held); `force` releases whatever is held. `onlyOf` (a job's credential) releases a lock that
 * holder took alone: knowing another's lock ID, which a refused lock shows, is not holding it.
 * Releasing a state that is not locked does nothing.
 */
export async function releaseLock(tx: Scope, place: LockPlace, id: string | undefined, onlyOf?: string): Promise<void> {
  const held = await readLock(tx.db, place.workspaceId);
  if (held === undefined) return;
  if ((id !== undefined && held.id !== id) || (onlyOf !== undefined && held.holder !== onlyOf)) throw new LockHeld(held, 409);
  await deleteKept(tx, lockChanges, { workspace_id: place.workspaceId, lock_id: held.id }, place.organizationId);
}

/** Who a job's state credential writes and locks as: what its audit columns and its lock's holder say. */
export function jobHolder(jobReference: string): string {
  return `job:${jobReference}`;
}

/** Who holds the lock of a workspace (a caller's audit name, or a job's holder), if anyone does. */
export async function lockHolder(db: Kysely<Database>, workspaceId: string): Promise<string | undefined> {
  const row = await db.selectFrom(lockTable).select('locked_by').where('workspace_id', '=', workspaceId).executeTakeFirst();
  return row === undefined ? undefined : String(row.locked_by);
}

/** Releases the lock of a workspace if `holder` took it (a job whose run stopped), whatever its ID. */
export async function releaseLockOf(tx: Scope, place: LockPlace, holder: string): Promise<void> {
  await deleteKept(tx, lockChanges, { workspace_id: place.workspaceId, locked_by: holder }, place.organizationId);
}

/**
 * Why a state write is refused under the lock held (409), or undefined when it may go ahead; a
 * job's credential (`onlyOf`) writes under a lock its job took alone.
 */
export function lockConflict(held: StateLock | undefined, lockId: string | undefined, onlyOf?: string): ApiError | undefined {
  if (held === undefined) {
    return lockId === undefined
      ? undefined
      : new ApiError(409, {
          code: 'lock_not_held',
          detail: `The state is not locked, so the lock ID ${lockId} the write names is not held (was it force-unlocked?); lock again and retry.`,
        });
  }
  if (lockId === held.id && (onlyOf === undefined || held.holder === onlyOf)) return undefined;
  return new ApiError(409, {
    code: 'state_locked',
    detail: `The state is locked (ID ${held.id}, by ${held.who}, since ${held.created}); a write must name that lock's ID (?ID=).`,
  });
}

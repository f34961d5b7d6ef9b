import { createHash } from 'node:crypto';
import { ApiError, badRequest, conflict, forbidden, notFound } from '../errors.js';
import { auditColumns, type Row, type StateRecords } from '../model/index.js';
import { secretPlace } from '../secrets/cipher.js';
import { newRecordId } from '../store/record-id.js';
import { inTransaction, type Scope } from './scope.js';
import {
  authorizeState,
  stateResources,
  type AuthorizedWorkspace,
  type StateAccess,
  type StatePlace,
  type StateResources,
} from './state-access.js';
import {
  acquireLock,
  lockConflict,
  lockHolder,
  lockIdOf,
  readLock,
  releaseLock,
  releaseLockOf,
  type LockPlace,
  type StateLock,
} from './state-lock.js';
import { recordChange } from './changes.js';

const versionTable = 'state_version';
const versionColumn = 'state';

/** A state as stored: its history record and its text. */
export interface StoredState {
  history: Row;
  text: string;
}

/** How a state is written: the lock it is written under, whether a new lineage is accepted, and where its JSON will be read. */
export interface StateWrite {
  lockId: string | undefined;
  force: boolean;
  /** The URL the history record's `output` names for a record id: where the web UI reads its JSON. */
  outputOf: (historyId: string) => string;
}

/** What a state text must say: Terraform's serial and lineage. */
interface StateHeader {
  serial: number;
  lineage: string;
}

/**
 * One workspace's Terraform state, as the http backend and the web UI's state pages reach it: the
 * current state, each version of it, writes under the lock, and rollback. Every operation checks the
 * access first (authorizeState); the state's text is sealed with the encryption key, bound to its
 * history record, and never logged.
 */
export class WorkspaceState {
  private readonly resources: StateResources;

  constructor(
    private readonly scope: Scope,
    names: StateRecords,
    private readonly place: StatePlace,
    private readonly access: StateAccess,
  ) {
    this.resources = stateResources(scope, names);
  }

  /** The newest state (highest serial), or undefined when none was ever written. */
  async current(): Promise<StoredState | undefined> {
    await this.authorize(this.scope, true);
    const history = await this.newest(this.scope);
    return history === undefined ? undefined : { history, text: await this.open(this.scope, history) };
  }

  /** One version of the state, by its history record's id (404 when the workspace has no such record). */
  async version(historyId: string): Promise<StoredState> {
    await this.authorize(this.scope, true);
    const history = await this.historyRecord(this.scope, historyId);
    return { history, text: await this.open(this.scope, history) };
  }

  /** The lock held on the state, if any. */
  async lock(): Promise<StateLock | undefined> {
    await this.authorize();
    return readLock(this.scope.db, this.place.workspaceId);
  }

  /** Takes the lock with Terraform's lock info; LockHeld (the holder's info) when another holds it. */
  takeLock(info: string): Promise<void> {
    return inTransaction(this.scope, undefined, async (tx) => {
      const workspace = await this.authorize(tx);
      await acquireLock(tx, this.lockPlace(workspace), info, workspace.writer);
    });
  }

  /**
   * Releases the lock the lock info names (LockHeld when another is held); without lock info, as
   * Terraform's force-unlock sends it, whatever lock is held, which a job's credential may not.
   */
  releaseLock(info: string | undefined): Promise<void> {
    return inTransaction(this.scope, undefined, async (tx) => {
      const workspace = await this.authorize(tx);
      const id = info === undefined ? undefined : lockIdOf(info);
      if (id === undefined && workspace.credential) throw forbidden("A job credential releases its own lock alone: send the lock's info.");
      await releaseLock(tx, this.lockPlace(workspace), id, workspace.credential ? workspace.writer : undefined);
    });
  }

  /**
   * Stores a state Terraform uploads: refused (409) while another lock is held or when the lock it
   * names is not held, when its serial is older than the current one, or its lineage another
   * (unless forced); the same serial again is taken only with the same text, as a repeat.
   */
  write(text: string, write: StateWrite): Promise<Row> {
    return inTransaction(this.scope, this.resources.history, async (tx) => {
      const workspace = await this.authorize(tx);
      const held = await readLock(tx.db, this.place.workspaceId);
      const refusal = lockConflict(held, write.lockId, workspace.credential ? workspace.writer : undefined);
      if (refusal !== undefined) throw refusal;
      const header = stateHeader(text);
      const current = await this.newest(tx);
      const md5 = md5Of(text);
      if (current !== undefined && !write.force) {
        if (current.lineage !== header.lineage)
          throw conflict(
            `The state's lineage ${JSON.stringify(header.lineage)} is not the workspace's (${JSON.stringify(current.lineage)}): it is the state of another configuration. Add ?force=true to the state address to replace it anyway.`,
          );
        const serial = Number(current.serial);
        if (header.serial < serial)
          throw conflict(
            `The state's serial ${header.serial} is older than the workspace's current serial ${serial}; refusing to go back.`,
          );
        if (header.serial === serial) {
          if (current.md5 === md5) return current;
          throw conflict(
            `The state has the serial ${serial} of the current state but other contents; a changed state needs a higher serial.`,
          );
        }
      }
      return this.insert(tx, workspace, text, { ...header, md5, jobReference: workspace.jobReference, outputOf: write.outputOf });
    });
  }

  /**
   * Stores the state a job's tool could not upload and wrote to its folder instead (Terraform's
   * errored.tfstate, when a stop cut its backend off), then releases the lock the job held: for a
   * job's credential alone. It records what the tool did after the last state it stored, so it
   * becomes current with a serial above the current one, whatever serial the tool gave it; one of
   * another lineage, or while another holder has the lock, is refused (409). The same text as the
   * current state stores nothing. Answers the serial it is current at.
   */
  keep(text: string, outputOf: (historyId: string) => string): Promise<number> {
    return inTransaction(this.scope, this.resources.history, async (tx) => {
      const workspace = await this.authorize(tx);
      if (!workspace.credential) throw forbidden("A state is kept from a job's folder with that job's credential alone.");
      const holder = await lockHolder(tx.db, this.place.workspaceId);
      if (holder !== undefined && holder !== workspace.writer)
        throw conflict(`The state is locked by another holder (${holder}) since the job ended; the job's state was not stored.`);
      const header = stateHeader(text);
      const current = await this.newest(tx);
      if (current !== undefined && current.lineage !== header.lineage)
        throw conflict(
          `The state's lineage ${JSON.stringify(header.lineage)} is not the workspace's (${JSON.stringify(current.lineage)}).`,
        );
      let serial = header.serial;
      if (current !== undefined && md5Of(text) === current.md5) serial = Number(current.serial);
      else {
        if (current !== undefined && serial <= Number(current.serial)) {
          serial = Number(current.serial) + 1;
          text = `${JSON.stringify({ ...(JSON.parse(text) as Record<string, unknown>), serial }, null, 2)}\n`;
        }
        await this.insert(tx, workspace, text, {
          serial,
          lineage: header.lineage,
          md5: md5Of(text),
          jobReference: workspace.jobReference,
          outputOf,
        });
      }
      await releaseLockOf(tx, this.lockPlace(workspace), workspace.writer);
      return serial;
    });
  }

  /**
   * Makes an earlier version current again as a new history record: its text with a serial above
   * the current one, so that Terraform's next run reads it. Refused while a lock is held.
   */
  rollback(historyId: string, outputOf: (historyId: string) => string): Promise<Row> {
    return inTransaction(this.scope, this.resources.history, async (tx) => {
      const workspace = await this.authorize(tx);
      if (workspace.credential) throw forbidden('A job credential cannot roll the state back.');
      const held = await readLock(tx.db, this.place.workspaceId);
      if (held !== undefined) throw conflict(`The state is locked (ID ${held.id}, by ${held.who}); roll back once the lock is released.`);
      const target = await this.historyRecord(tx, historyId);
      const current = await this.newest(tx);
      const serial = Math.max(Number(current?.serial ?? 0), Number(target.serial)) + 1;
      const state = JSON.parse(await this.open(tx, target)) as Record<string, unknown>;
      const text = `${JSON.stringify({ ...state, serial }, null, 2)}\n`;
      const jobReference = typeof target.job_reference === 'string' ? target.job_reference : null;
      return this.insert(tx, workspace, text, { serial, lineage: String(target.lineage), md5: md5Of(text), jobReference, outputOf });
    });
  }

  /** The workspace, once the access is checked (in the transaction of a write). */
  authorize(scope: Scope = this.scope, reading = false): Promise<AuthorizedWorkspace> {
    return authorizeState(scope, this.resources, this.place, this.access, reading);
  }

  private async insert(
    tx: Scope,
    workspace: AuthorizedWorkspace,
    text: string,
    fields: StateHeader & { md5: string; jobReference: string | null; outputOf: (historyId: string) => string },
  ): Promise<Row> {
    const { history } = this.resources;
    const cipher = tx.engine.cipher;
    if (cipher === undefined) throw new Error('state written through an engine opened without the encryption key');
    const id = newRecordId();
    const row: Row = {
      id,
      workspace_id: this.place.workspaceId,
      job_reference: fields.jobReference,
      output: fields.outputOf(id),
      serial: fields.serial,
      md5: fields.md5,
      lineage: fields.lineage,
      ...auditColumns(workspace.author ?? workspace.writer, new Date().toISOString(), 'create'),
    };
    await tx.db.insertInto(history.table).values(row).execute();
    // The history record's change stands for the version: its text, sealed, never reaches the trail.
    recordChange(tx, history, { action: 'create', id, organizationId: organizationOfWorkspace(workspace), before: undefined, after: row });
    await tx.db
      .insertInto(versionTable)
      .values({ id, [versionColumn]: cipher.seal(text, secretPlace(versionTable, versionColumn, id)), bytes: Buffer.byteLength(text) })
      .execute();
    return row;
  }

  private lockPlace(workspace: AuthorizedWorkspace): LockPlace {
    return { workspaceId: this.place.workspaceId, organizationId: organizationOfWorkspace(workspace) };
  }

  private newest(scope: Scope): Promise<Row | undefined> {
    return scope.db
      .selectFrom(this.resources.history.table)
      .selectAll()
      .where('workspace_id', '=', this.place.workspaceId)
      .orderBy('serial', 'desc')
      .orderBy('created_date', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  private async historyRecord(scope: Scope, historyId: string): Promise<Row> {
    const row = await scope.db
      .selectFrom(this.resources.history.table)
      .selectAll()
      .where('id', '=', historyId)
      .where('workspace_id', '=', this.place.workspaceId)
      .executeTakeFirst();
    if (row === undefined) throw notFound(this.resources.history.type, historyId);
    return row;
  }

  private async open(scope: Scope, history: Row): Promise<string> {
    const cipher = scope.engine.cipher;
    if (cipher === undefined) throw new Error('state read through an engine opened without the encryption key');
    const stored = await scope.db.selectFrom(versionTable).select(versionColumn).where('id', '=', String(history.id)).executeTakeFirst();
    if (stored === undefined) throw new ApiError(404, { code: 'not_found', detail: 'The text of this state version is not stored.' });
    return cipher.open(String(stored[versionColumn]), secretPlace(versionTable, versionColumn, history.id));
  }
}

const organizationOfWorkspace = (workspace: AuthorizedWorkspace) => String(workspace.row.organization_id);

const md5Of = (text: string) => createHash('md5').update(text).digest('hex');

/** The serial and lineage of a Terraform state text; 400 for anything that is not one. */
function stateHeader(text: string): StateHeader {
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {
    throw badRequest('invalid_state', 'The body is not a Terraform state: it is not JSON.');
  }
  if (typeof state !== 'object' || state === null || Array.isArray(state))
    throw badRequest('invalid_state', 'The body is not a Terraform state: it is not a JSON object.');
  const { serial, lineage } = state as { serial?: unknown; lineage?: unknown };
  if (typeof serial !== 'number' || !Number.isSafeInteger(serial) || serial < 0 || serial > 2_147_483_647)
    throw badRequest('invalid_state', 'The body is not a Terraform state: its "serial" is not a whole number from 0 to 2147483647.');
  if (typeof lineage !== 'string' || lineage.length > 128)
    throw badRequest('invalid_state', 'The body is not a Terraform state: its "lineage" is not a string of at most 128 characters.');
  return { serial, lineage };
}

import type { Expression, Kysely } from 'kysely';
import { auditName, type Caller } from '../auth/caller.js';
import { eventOf, type AttributeValue, type EventName, type EventOf, type Events } from '../model/index.js';
import type { Database } from '../store/database.js';
import { newRecordId } from '../store/record-id.js';

/** Through what a change reached the service. */
export type Transport = 'jsonapi' | 'graphql' | 'state' | 'registry' | 'console' | 'executor' | 'scheduler' | 'recovery' | 'service';

/**
 * Where the work of a session comes from: the transport, and for a request its id and the client's
 * address (as the trusted-proxy setting reads it); for work done for a job (its state credential,
 * the executor's moves), the job.
 */
export interface Provenance {
  transport: Transport;
  requestId?: string;
  clientAddress?: string;
  jobId?: string;
}

/** One changed attribute: its values before and after, or for a secret only that it changed. */
export type ChangedValue = { before: AttributeValue | undefined; after: AttributeValue | undefined } | { sensitive: true };

/** What happened to one record. */
export type ChangeAction = 'create' | 'update' | 'delete' | 'issue' | 'revoke';

export interface Change {
  /**
   * The organization the record lives in; undefined for a record of the whole service. A new
   * record's may be a subquery through its parents, which the change row's INSERT reads, so a
   * create asks nothing before its own INSERT.
   */
  organizationId: string | undefined | Expression<unknown>;
  type: string;
  id: string;
  action: ChangeAction;
  attributes: Readonly<Record<string, ChangedValue>>;
}

/**
 * Who acted, as the audit trail names it: a person (`user`, from a token this service signed or the
 * OIDC issuer's), a team or personal API token, a job's state credential, the operator's console,
 * or the service itself on its own work (the executor, the scheduler, recovery after a restart).
 */
export type ActorKind =
  'user' | 'teamToken' | 'personalToken' | 'stateCredential' | 'agentToken' | 'console' | 'executor' | 'scheduler' | 'recovery' | 'service';

export function actorKind(caller: Caller, provenance: Provenance): ActorKind {
  switch (caller.token.kind) {
    case 'signed':
    case 'oidc':
      return 'user';
    case 'service':
      return provenance.transport === 'executor' || provenance.transport === 'scheduler' || provenance.transport === 'recovery'
        ? provenance.transport
        : 'service';
    default:
      return caller.token.kind;
  }
}

/** The columns of a change row, as stored. */
// A type, not an interface: a row the query layer takes is a plain record of columns.
export type ChangeRow = {
  id: string;
  at: string;
  organization_id: string | null | Expression<unknown>;
  actor_kind: ActorKind;
  actor_subject: string;
  actor_token_kind: string;
  actor_token_id: string | null;
  actor_job_id: string | null;
  record_type: string;
  record_id: string;
  action: ChangeAction;
  transport: Transport;
  request_id: string | null;
  client_address: string | null;
  attributes: string;
};

export const changeTable = 'record_change';

/** The columns of a change row an INSERT that writes it beside its record fills from values; the organization and the record's id come from the inserted row. */
export const changeValueColumns = [
  'id',
  'at',
  'actor_kind',
  'actor_subject',
  'actor_token_kind',
  'actor_token_id',
  'actor_job_id',
  'record_type',
  'action',
  'transport',
  'request_id',
  'client_address',
  'attributes',
] as const satisfies readonly (keyof ChangeRow)[];

/** The columns of an outbox row, as stored: an event of the event map, with its name as the topic and its payload as JSON. */
// A type, not an interface: a row the query layer takes is a plain record of columns.
export type OutboxRow = {
  id: string;
  topic: EventName;
  payload: string;
  created_date: string;
  claimed_until: string | null;
  attempts: number;
};

export const outboxTable = 'outbox_event';

/**
 * One write's record of what it did: every change of a record it makes is `record`ed, and every
 * event of the event map it emits is `emit`ted, and both are written by `flush` in the write's own
 * transaction (the changes to the audit trail, the events to the outbox), so they exist exactly
 * when the write does. A write that runs again after losing to a concurrent one starts a fresh unit.
 */
export class UnitOfWork {
  private readonly changes: Change[] = [];
  private readonly events: EventOf[] = [];
  /** Whether an event was emitted: the relay then has rows to deliver once the write commits. */
  emitted = false;

  constructor(
    readonly caller: Caller,
    readonly provenance: Provenance,
  ) {}

  /**
   * Records a change of one record. One write changes a record once, as the trail shows it: a
   * further change of the same record in the same unit (a hook setting what the server derives,
   * the lists a create sends) joins the first, which keeps its action and its values before.
   */
  record(change: Change): void {
    const earlier = this.changes.find((known) => known.type === change.type && known.id === change.id);
    if (earlier === undefined) {
      this.changes.push(change);
      return;
    }
    const attributes: Record<string, ChangedValue> = { ...earlier.attributes };
    for (const [name, value] of Object.entries(change.attributes)) {
      const first = attributes[name];
      if (first === undefined) attributes[name] = value;
      else if ('sensitive' in first || 'sensitive' in value) attributes[name] = { sensitive: true };
      else attributes[name] = { before: first.before, after: value.after };
    }
    const action = change.action === 'delete' ? 'delete' : earlier.action;
    this.changes[this.changes.indexOf(earlier)] = { ...earlier, action, attributes };
  }

  emit<K extends EventName>(name: K, payload: Events[K]): void {
    this.events.push(eventOf(name, payload));
    this.emitted = true;
  }

  /** Whether nothing was recorded or emitted. */
  isEmpty(): boolean {
    return this.changes.length === 0 && this.events.length === 0;
  }

  /** The change rows of what was recorded, in order. */
  rows(now = new Date().toISOString()): ChangeRow[] {
    return this.changes.map((change) => this.rowOf(change, now));
  }

  /** The change row of one change, for a statement that writes it itself (a create's, on PostgreSQL). */
  rowOf(change: Change, now = new Date().toISOString()): ChangeRow {
    const { caller, provenance } = this;
    return {
      id: newRecordId(),
      at: now,
      organization_id: change.organizationId ?? null,
      actor_kind: actorKind(caller, provenance),
      actor_subject: auditName(caller),
      actor_token_kind: caller.token.kind,
      actor_token_id: caller.token.trackedId ?? null,
      actor_job_id: provenance.jobId ?? null,
      record_type: change.type,
      record_id: change.id,
      action: change.action,
      transport: provenance.transport,
      request_id: provenance.requestId ?? null,
      client_address: provenance.clientAddress ?? null,
      attributes: JSON.stringify(change.attributes),
    };
  }

  /** The outbox rows of what was emitted, in order: their ids sort as they were emitted. */
  outboxRows(now = new Date().toISOString()): OutboxRow[] {
    return this.events.map(({ name, payload }) => ({
      id: newRecordId(),
      topic: name,
      payload: JSON.stringify(payload),
      created_date: now,
      claimed_until: null,
      attempts: 0,
    }));
  }

  /** Writes what was recorded and emitted, in the transaction `db` is, and forgets it. */
  async flush(db: Kysely<Database>): Promise<void> {
    const rows = this.rows();
    const outbox = this.outboxRows();
    this.changes.length = 0;
    this.events.length = 0;
    await insertBatched(db, changeTable, rows);
    await insertBatched(db, outboxTable, outbox);
  }
}

/** Rows in statements of 500 at most: a hook that rewrites hundreds of records stays under every driver's limit of bound values. */
async function insertBatched(db: Kysely<Database>, table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 500)
    await db
      .insertInto(table)
      .values(rows.slice(start, start + 500))
      .execute();
}

/**
 * Runs `work` in a transaction of `db` with a fresh unit of work of `caller`'s, whose changes and
 * events are written before the commit: the one way a write and its record are made together.
 */
export function inUnitOfWork<T>(
  db: Kysely<Database>,
  caller: Caller,
  provenance: Provenance,
  work: (trx: Kysely<Database>, unit: UnitOfWork) => Promise<T>,
): Promise<{ result: T; unit: UnitOfWork }> {
  return db.transaction().execute(async (trx) => {
    const unit = new UnitOfWork(caller, provenance);
    const result = await work(trx, unit);
    await unit.flush(trx);
    return { result, unit };
  });
}

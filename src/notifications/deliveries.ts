import type { Kysely } from 'kysely';
import { serviceCaller, type Caller } from '../auth/caller.js';
import { keptChange, type KeptRowChange } from '../engine/changes.js';
import type { KeptTable } from '../model/index.js';
import { inUnitOfWork, type Provenance } from '../engine/unit-of-work.js';
import { columnOf, type Database, type Row } from '../model/index.js';
import type { Destinations } from '../outbound/destinations.js';
import { postJson, type OutboundLimits } from '../outbound/post.js';
import { newRecordId } from '../store/record-id.js';
import { messageBody, signature, signatureHeader, type NotificationEvent } from './messages.js';

/** A configuration as delivery needs it, its signing secret opened. */
export interface DeliveryTarget {
  id: string;
  /** The organization it is of, where its deliveries' changes are recorded. */
  organizationId: string;
  /** The workspace it is of; null for an organization-wide one. */
  workspaceId: string | null;
  name: string;
  channelType: string;
  destinationUrl: string;
  messageStyle: string;
  signingSecret: string | null;
  active: boolean;
}

/**
 * A configuration, as stored with its signing secret opened, as delivery needs it; deliveries are
 * recorded under `workspaceId` (the configuration's own, or the workspace whose job it is about).
 */
export function deliveryTarget(row: Row, workspaceId: string | null): DeliveryTarget {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    workspaceId,
    name: String(row[columnOf('name')]),
    channelType: String(row[columnOf('channelType')]),
    destinationUrl: String(row[columnOf('destinationUrl')]),
    messageStyle: row[columnOf('messageStyle')] === 'SIMPLE' ? 'SIMPLE' : 'DETAILED',
    signingSecret: typeof row[columnOf('signingSecret')] === 'string' ? String(row[columnOf('signingSecret')]) : null,
    active: Number(row[columnOf('active')]) === 1,
  };
}

/** A delivery as Terrakube's web UI lists it, with what the destination answered. */
export interface DeliveryView {
  id: string;
  configurationId: string;
  jobId: number;
  configurationName: string;
  channelType: string;
  event: string;
  status: 'SENT' | 'FAILED';
  attemptCount: number;
  lastAttemptAt: string | null;
  lastError: string | null;
  responseStatus: number | null;
  /** The start of the destination's answer, at most `storedAnswerChars` characters. */
  responseBody: string | null;
  durationMs: number | null;
  createdDate: string;
}

/** The most characters of a destination's answer kept with a delivery. */
export const storedAnswerChars = 2048;
const table = 'notification_delivery';

/** A delivery in the audit trail: what it was of, and how it went; never the message or the answer. */
const deliveryChanges: KeptTable = {
  table,
  type: 'notification delivery',
  key: 'id',
  shown: {
    configuration: 'configuration_id',
    job: 'job_id',
    event: 'event',
    status: 'status',
    attempts: 'attempt_count',
    responseStatus: 'response_status',
    lastError: 'last_error',
  },
};

/** Who a delivery's changes name: the person testing a configuration or retrying a delivery, else the service. */
export interface DeliveryActor {
  caller: Caller;
  provenance: Provenance;
}

/** The service itself, delivering what a job's status change says. */
const serviceActor: DeliveryActor = { caller: serviceCaller, provenance: { transport: 'service' } };

/**
 * Delivers messages to notification destinations and records each delivery with its answer: the
 * one door through which a job's status, a test and a retry reach the outside. The newest
 * `kept` deliveries of each configuration are kept. What is stored never holds the destination or
 * the secret: only the message, the answer's status and start, and why it failed.
 */
export class Notifier {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly destinations: Destinations,
    private readonly limits: OutboundLimits,
    private readonly kept: number,
  ) {}

  /** Sends a message for `event` without recording it (a destination tried before it is saved). */
  async tryOut(target: DeliveryTarget, event: NotificationEvent): Promise<string | undefined> {
    const outcome = await this.send(target, messageBody(styleOf(target), event));
    return outcome.error;
  }

  /** Sends a message for `event` to the configuration's destination and records the delivery. */
  async deliver(target: DeliveryTarget, event: NotificationEvent, by: DeliveryActor = serviceActor): Promise<DeliveryView> {
    const payload = messageBody(styleOf(target), event);
    const row: Row = {
      id: newRecordId(),
      configuration_id: target.id,
      workspace_id: target.workspaceId,
      configuration_name: target.name,
      channel_type: target.channelType,
      event: event.kind,
      job_id: event.jobId,
      payload,
      status: 'PENDING',
      attempt_count: 0,
      created_date: new Date().toISOString(),
    };
    await this.recorded(by, { action: 'create', before: undefined, after: row }, target, (db) =>
      db.insertInto(table).values(row).execute(),
    );
    const view = await this.attempt(target, row, by);
    await this.prune(target.id);
    return view;
  }

  /** Sends a failed delivery's message again, to the configuration as it is now. */
  async retry(target: DeliveryTarget, delivery: Row, by: DeliveryActor = serviceActor): Promise<DeliveryView> {
    return this.attempt(target, delivery, by);
  }

  /** A delivery by id; undefined when there is none. */
  async find(id: string): Promise<Row | undefined> {
    return this.db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The newest deliveries of a workspace's configurations, or of one configuration. */
  async recent(where: { workspaceId: string } | { configurationId: string }, limit: number): Promise<DeliveryView[]> {
    const [column, value] = 'workspaceId' in where ? ['workspace_id', where.workspaceId] : ['configuration_id', where.configurationId];
    const rows = await this.db
      .selectFrom(table)
      .selectAll()
      .where(column, '=', value)
      .orderBy('created_date', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(viewOf);
  }

  /** Sends the message of a delivery stored as `before`, and records how it went. */
  private async attempt(target: DeliveryTarget, before: Row, by: DeliveryActor): Promise<DeliveryView> {
    const id = String(before.id);
    const outcome = await this.send(target, String(before.payload));
    const answer = outcome.body === '' ? null : outcome.body.slice(0, storedAnswerChars);
    const values: Row = {
      status: outcome.error === undefined ? 'SENT' : 'FAILED',
      attempt_count: Number(before.attempt_count) + 1,
      response_status: outcome.status ?? null,
      response_body: answer,
      duration_ms: outcome.durationMs,
      last_error: outcome.error ?? null,
      last_attempt_at: new Date().toISOString(),
      configuration_name: target.name,
      channel_type: target.channelType,
    };
    await this.recorded(by, { action: 'update', before, after: { ...before, ...values } }, target, (db) =>
      db.updateTable(table).set(values).where('id', '=', id).execute(),
    );
    const row = await this.find(id);
    if (row === undefined) throw new Error(`delivery ${id} vanished while it was recorded`);
    return viewOf(row);
  }

  /** Writes a delivery with its change row, in one transaction, as `by`'s. */
  private async recorded(
    by: DeliveryActor,
    change: Omit<KeptRowChange, 'organizationId'>,
    target: DeliveryTarget,
    write: (db: Kysely<Database>) => Promise<unknown>,
  ): Promise<void> {
    await inUnitOfWork(this.db, by.caller, by.provenance, async (trx, unit) => {
      await write(trx);
      unit.record(keptChange(deliveryChanges, { ...change, organizationId: target.organizationId }));
    });
  }

  private send(target: DeliveryTarget, payload: string) {
    // Only generic webhooks are signed, as in Terrakube: Slack and Teams ignore any header.
    const signed = target.channelType === 'WEBHOOK' && target.signingSecret !== null && target.signingSecret !== '';
    const headers: Record<string, string> = signed ? { [signatureHeader]: signature(target.signingSecret ?? '', payload) } : {};
    return postJson(this.destinations, this.limits, target.destinationUrl, payload, headers);
  }

  /** Keeps the newest `kept` deliveries of a configuration. */
  private async prune(configurationId: string): Promise<void> {
    const boundary = await this.db
      .selectFrom(table)
      .select(['created_date', 'id'])
      .where('configuration_id', '=', configurationId)
      .orderBy('created_date', 'desc')
      .orderBy('id', 'desc')
      .offset(this.kept)
      .limit(1)
      .executeTakeFirst();
    if (boundary === undefined) return;
    await this.db
      .deleteFrom(table)
      .where('configuration_id', '=', configurationId)
      .where((eb) =>
        eb.or([
          eb('created_date', '<', boundary.created_date),
          eb.and([eb('created_date', '=', boundary.created_date), eb('id', '<=', boundary.id)]),
        ]),
      )
      .execute();
  }
}

const styleOf = (target: DeliveryTarget) => ({
  channelType: target.channelType,
  messageStyle: target.messageStyle,
  configurationName: target.name,
});

const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

function viewOf(row: Row): DeliveryView {
  return {
    id: String(row.id),
    configurationId: String(row.configuration_id),
    jobId: Number(row.job_id),
    configurationName: String(row.configuration_name),
    channelType: String(row.channel_type),
    event: String(row.event),
    status: row.status === 'SENT' ? 'SENT' : 'FAILED',
    attemptCount: Number(row.attempt_count),
    lastAttemptAt: textOrNull(row.last_attempt_at),
    lastError: textOrNull(row.last_error),
    responseStatus: numberOrNull(row.response_status),
    responseBody: textOrNull(row.response_body),
    durationMs: numberOrNull(row.duration_ms),
    createdDate: String(row.created_date),
  };
}

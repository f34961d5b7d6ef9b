import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { JobStatusChanged } from '../model/index.js';
import type { JobNotifications } from '../notifications/job-notifications.js';

/** A job's status changed: what the live channel sends, as Terrakube's `JobStatusEvent` names it. */
export interface JobStatusEvent {
  jobId: number;
  workspaceId: string;
  organizationId: string;
  status: string;
}

/**
 * Where job status changes go once they are committed, and who hears them: every process of the
 * service, whichever made the change.
 */
export interface JobEvents {
  publish(event: JobStatusEvent): Promise<void>;
  /** Calls `listener` for every event from now on; the answer stops it. */
  listen(listener: (event: JobStatusEvent) => void): () => void;
  close(): Promise<void>;
}

/** The most listeners one process keeps (each open subscription is one); Node warns past its default of 10. */
const maxListeners = 10_000;

/** One process, the embedded store's case: events go from the writer to the listeners directly. */
export function localJobEvents(): JobEvents {
  const emitter = new EventEmitter<{ event: [JobStatusEvent] }>().setMaxListeners(maxListeners);
  return {
    publish: (event) => {
      emitter.emit('event', event);
      return Promise.resolve();
    },
    listen: (listener) => {
      emitter.on('event', listener);
      return () => emitter.off('event', listener);
    },
    close: () => Promise.resolve(),
  };
}

const channel = 'stratum_job_status';

/** The event a message of the channel holds; undefined when it holds none. */
export function jobStatusEventOf(value: unknown): JobStatusEvent | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { jobId, workspaceId, organizationId, status } = value as Partial<Record<keyof JobStatusEvent, unknown>>;
  if (typeof jobId !== 'number' || typeof workspaceId !== 'string' || typeof organizationId !== 'string' || typeof status !== 'string') {
    return undefined;
  }
  return { jobId, workspaceId, organizationId, status };
}

/**
 * What is done with a job's status change once it has committed: it goes to the live channel (every
 * replica's), and to the notifications configured for that status (delivered by the replica that
 * relays the event). Both are started at once, the channel's first: the relay starts the events
 * of a batch in order, so the channel hears them in order while a slow notification receiver
 * holds up only itself. Fails when either did, for the relay to try again.
 */
export function jobStatusDelivery(
  events: JobEvents,
  notifications: Pick<JobNotifications, 'deliver'>,
): (change: JobStatusChanged) => Promise<void> {
  return async (change) => {
    const { jobId, workspaceId, organizationId, status } = change;
    const published = events.publish({ jobId, workspaceId, organizationId, status });
    const delivered = notifications.deliver(change);
    await Promise.all([published, delivered]);
  };
}

/** An event as a text read from the channel carries it. */
function eventOf(payload: string | undefined): JobStatusEvent | undefined {
  try {
    return jobStatusEventOf(JSON.parse(payload ?? ''));
  } catch {
    return undefined;
  }
}

/**
 * Several replicas on one PostgreSQL: an event is a NOTIFY on one channel, and every process LISTENs
 * on its own connection, the publisher's included, so every listener hears every event once. A
 * lost listening connection is opened again; events sent while it was down are not heard (the web
 * UI still reloads what it shows).
 */
export function postgresJobEvents(databaseUrl: string, warn: (message: string) => void): JobEvents {
  const emitter = new EventEmitter<{ event: [JobStatusEvent] }>().setMaxListeners(maxListeners);
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('notification', (message) => {
      const event = eventOf(message.payload);
      if (event !== undefined) emitter.emit('event', event);
    });
    next.on('error', () => reconnect());
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
      client = next;
    } catch (error) {
      warn(`job events: listening failed (${error instanceof Error ? error.message : String(error)}); retrying`);
      void next.end().catch(() => undefined);
      reconnect();
    }
  };
  const reconnect = () => {
    const lost = client;
    client = undefined;
    if (lost !== undefined) void lost.end().catch(() => undefined);
    if (closed || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, 1000);
  };
  const ready = connect();
  return {
    publish: async (event) => {
      await ready;
      const sender = client;
      if (sender === undefined) throw new Error('job events: no connection to PostgreSQL');
      await sender.query('SELECT pg_notify($1, $2)', [channel, JSON.stringify(event)]);
    },
    listen: (listener) => {
      emitter.on('event', listener);
      return () => emitter.off('event', listener);
    },
    close: async () => {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      await ready;
      await client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}

/**
 * Every event a write may emit, by name, with its payload. A write hook emits one through its
 * WriteContext; the unit of work writes it to the outbox in the write's transaction
 * (engine/unit-of-work.ts), and the relay (events/outbox-relay.ts) hands it to its handler once
 * committed. It lives in model/, beside the WriteContext that emits it, because model/ is what the
 * emitters (resources/), the writer (engine/) and the handlers (runs/, notifications/) all share.
 * A new event is a line here, a reader below, and a handler where the service is assembled
 * (core.ts): the types make each of them required.
 */
export interface Events {
  jobStatusChanged: JobStatusChanged;
}

/** A job's status changed: the job, its workspace, organization and template, and the status it took. */
export interface JobStatusChanged {
  jobId: number;
  workspaceId: string;
  organizationId: string;
  templateId: string;
  status: string;
}

export type EventName = keyof Events;

/** One event with its name, as the outbox holds it; `K` ties the payload to the name. */
export type EventOf<K extends EventName = EventName> = { [N in K]: { name: N; payload: Events[N] } }[K];

/** An event of the map; the cast only says what TypeScript cannot see while `K` is open, that the payload is the name's. */
export function eventOf<K extends EventName>(name: K, payload: Events[K]): EventOf {
  // Redundant while the map holds one event, required as soon as it holds two.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  return { name, payload } as EventOf;
}

/** What is done with each event once its write has committed. */
export type EventHandlers = { [N in EventName]: (payload: Events[N]) => Promise<void> };

/** Hands an event to its handler. */
export function handle<K extends EventName>(handlers: EventHandlers, event: EventOf<K>): Promise<void> {
  return handlers[event.name](event.payload);
}

/**
 * The payload of each event, checked as it is read back from the outbox: it crossed the database,
 * where an older or newer version of the service may have written it. Undefined when it is not one.
 */
const readers: { [N in EventName]: (value: Record<string, unknown>) => Events[N] | undefined } = {
  jobStatusChanged: ({ jobId, workspaceId, organizationId, templateId, status }) =>
    typeof jobId === 'number' &&
    typeof workspaceId === 'string' &&
    typeof organizationId === 'string' &&
    typeof templateId === 'string' &&
    typeof status === 'string'
      ? { jobId, workspaceId, organizationId, templateId, status }
      : undefined,
};

function isEventName(name: string): name is EventName {
  return Object.hasOwn(readers, name);
}

/** The event an outbox row holds, its topic and its payload as stored; undefined when it holds none this version knows. */
export function readEvent(topic: string, payload: string): EventOf | undefined {
  if (!isEventName(topic)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const read = readers[topic](value as Record<string, unknown>);
  return read === undefined ? undefined : eventOf(topic, read);
}

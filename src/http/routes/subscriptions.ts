import fastifyWebsocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import {
  GraphQLError,
  GraphQLID,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLFieldConfig,
} from 'graphql';
import { makeHandler } from 'graphql-ws/use/@fastify/websocket';
import type { Authenticator } from '../../auth/authenticator.js';
import { presentedToken } from '../../auth/credentials.js';
import type { Caller } from '../../auth/caller.js';
import type { Engine } from '../../engine/index.js';
import { ApiError } from '../../errors.js';
import type { ResourceDeclaration } from '../../model/index.js';
import type { JobEvents, JobStatusEvent } from '../../runs/index.js';
import { checkedNowAndThen, type CallerConnections } from '../caller-connections.js';

/** What one connection may hold: subscriptions at once, and events waiting for a slow client. */
const limits = { subscriptionsPerConnection: 50, waitingEvents: 100, maxMessageBytes: 64 * 1024 };

interface ConnectionState {
  caller?: Caller;
  /** The token the connection authenticated with: checked again while events flow, so a revoked one stops them. */
  token?: string;
  subscriptions: number;
}

/** The records whose job events a caller may subscribe to: a workspace's, or an organization's. */
export interface LiveChannelRecords {
  workspace: ResourceDeclaration;
  organization: ResourceDeclaration;
}

const jobStatusEvent = new GraphQLObjectType({
  name: 'JobStatusEvent',
  fields: {
    jobId: { type: new GraphQLNonNull(GraphQLInt) },
    workspaceId: { type: new GraphQLNonNull(GraphQLID) },
    status: { type: new GraphQLNonNull(GraphQLString) },
  },
});

/**
 * The events of `events` that `wanted` keeps, as an async iterator ending when the subscription
 * does. A client that reads slower than events come loses the oldest: each event says where a job
 * is now, so the newest matter.
 */
function eventsWhere(
  events: JobEvents,
  wanted: (event: JobStatusEvent) => boolean,
  ended: () => void,
  /** Whether the subscriber may still see them (its token valid, its access kept), asked before each event; false ends the subscription. */
  allowed: () => Promise<boolean>,
): AsyncIterableIterator<JobStatusEvent> {
  const waiting: JobStatusEvent[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  const stop = events.listen((event) => {
    if (!wanted(event)) return;
    waiting.push(event);
    if (waiting.length > limits.waitingEvents) waiting.shift();
    wake?.();
  });
  const finish = (): Promise<IteratorResult<JobStatusEvent>> => {
    if (!done) ended();
    done = true;
    stop();
    wake?.();
    return Promise.resolve({ done: true, value: undefined });
  };
  const iterator: AsyncIterableIterator<JobStatusEvent> = {
    next: async () => {
      while (!done && waiting.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const value = waiting.shift();
      if (value === undefined) return { done: true, value: undefined };
      if (!(await allowed())) return finish();
      return { done: false, value };
    },
    return: finish,
    throw: finish,
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/** Why a subscription is refused, as a GraphQL error the client sees (no more than a 404 would say). */
function refusal(error: unknown, what: string): never {
  if (error instanceof ApiError) throw new GraphQLError(`${what} was not found.`, { extensions: { code: 'NOT_FOUND' } });
  throw error;
}

/**
 * The live channel Terrakube's web UI listens on (`/subscriptions`, the graphql-transport-ws
 * protocol, the bearer token in the connection's `Authorization` parameter): a workspace's job
 * status changes, or an organization's. A caller subscribes to what it may read, checked when it
 * subscribes; the connection closes when its token expires.
 */
export const subscriptions = fp(
  async (
    app: FastifyInstance,
    options: {
      engine: Engine;
      authenticator: Authenticator;
      events: JobEvents;
      records: LiveChannelRecords;
      connections: CallerConnections;
    },
  ) => {
    const { engine, authenticator, events, records, connections } = options;
    const visible = async (caller: Caller, resource: ResourceDeclaration, id: string) => {
      // Reads only: the live channel changes nothing.
      const session = engine.open(caller, { transport: 'service' });
      try {
        return await session.find({ resource, ancestors: [], id });
      } finally {
        session.close();
      }
    };
    type Context = { caller: Caller; state: ConnectionState; socket: { close(code: number, reason: string): void } };
    /**
     * Whether a subscriber may still see a record's events: its token still authenticates (not
     * revoked, not expired) and finds the record (its grant or membership kept). When not, its
     * connection closes as an expired token's does.
     */
    const stillAllowed = async (context: Context, resource: ResourceDeclaration, id: string): Promise<boolean> => {
      const token = context.state.token ?? '';
      const caller = await Promise.resolve(authenticator.authenticate(token)).catch(() => undefined);
      const kept =
        caller !== undefined &&
        (await visible(caller, resource, id).then(
          () => true,
          () => false,
        ));
      if (!kept) context.socket.close(4403, 'Forbidden: the token was revoked or its access withdrawn');
      return kept;
    };
    const field = (
      argument: string,
      what: string,
      matches: (event: JobStatusEvent, id: string) => boolean,
      resource: ResourceDeclaration,
    ) =>
      ({
        type: new GraphQLNonNull(jobStatusEvent),
        args: { [argument]: { type: new GraphQLNonNull(GraphQLID) } },
        subscribe: async (_root: unknown, args: Record<string, string>, context: Context) => {
          const id = args[argument] ?? '';
          await visible(context.caller, resource, id).catch((error: unknown) => refusal(error, what));
          const { state } = context;
          if (state.subscriptions >= limits.subscriptionsPerConnection) {
            throw new GraphQLError(`A connection holds at most ${limits.subscriptionsPerConnection} subscriptions at once.`);
          }
          state.subscriptions += 1;
          return eventsWhere(
            events,
            (event) => matches(event, id),
            () => (state.subscriptions -= 1),
            checkedNowAndThen(() => stillAllowed(context, resource, id)),
          );
        },
        resolve: (event: unknown) => event,
      }) satisfies GraphQLFieldConfig<unknown, Context, Record<string, string>>;
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({
        name: 'Query',
        fields: { live: { type: GraphQLString, description: 'The live channel serves subscriptions only.', resolve: () => null } },
      }),
      subscription: new GraphQLObjectType({
        name: 'Subscription',
        fields: {
          jobStatusChanged: field('workspaceId', 'The workspace', (event, id) => event.workspaceId === id, records.workspace),
          organizationJobStatusChanged: field(
            'organizationId',
            'The organization',
            (event, id) => event.organizationId === id,
            records.organization,
          ),
        },
      }),
    });

    await app.register(fastifyWebsocket, { options: { maxPayload: limits.maxMessageBytes } });
    const states = new WeakMap<object, ConnectionState>();
    const stateOf = (extra: object) => {
      let state = states.get(extra);
      if (state === undefined) states.set(extra, (state = { subscriptions: 0 }));
      return state;
    };
    app.route({
      method: 'GET',
      url: '/subscriptions',
      // A plain request is told what the address wants, as an error document like every other.
      handler: () => {
        throw new ApiError(426, {
          code: 'upgrade_required',
          detail: 'The live channel speaks graphql-transport-ws over a WebSocket: connect with an Upgrade request.',
        });
      },
      wsHandler: makeHandler({
        schema,
        connectionInitWaitTimeout: 10_000,
        onConnect: async (ctx) => {
          const header = ctx.connectionParams?.Authorization ?? ctx.connectionParams?.authorization;
          const token = presentedToken(typeof header === 'string' ? header : undefined, { basic: false });
          if (typeof token !== 'string') return false;
          const caller = await Promise.resolve(authenticator.authenticate(token)).catch(() => undefined);
          if (caller === undefined) return false;
          const socket = ctx.extra.socket;
          const release = connections.take(caller);
          if (release === undefined) {
            socket.close(4429, connections.refusal().slice(0, 120));
            return false;
          }
          socket.once('close', release);
          const state = stateOf(ctx.extra);
          state.caller = caller;
          state.token = token;
          const expiresAt = caller.token.expiresAt;
          if (expiresAt !== undefined) {
            const stop = atExpiry(expiresAt, () => socket.close(4403, 'Forbidden: the token expired'));
            socket.once('close', stop);
          }
          return true;
        },
        context: (ctx): Context => {
          const state = stateOf(ctx.extra);
          if (state.caller === undefined) throw new GraphQLError('The connection is not authenticated.');
          return { caller: state.caller, state, socket: ctx.extra.socket };
        },
      }),
    });
    app.addHook('onClose', async () => {
      await events.close();
    });
  },
  { name: 'subscriptions' },
);

/** The longest delay a timer takes: a longer one fires at once (Node clamps it to 1 ms). */
const longestTimerMs = 2 ** 31 - 1;

/**
 * Calls `expired` once `expiresAt` has passed, however far away it is: a token may live longer
 * than one timer can wait (24.8 days; `stratum token` gives 30 by default), so a timer that ends
 * before the expiry waits again. Answers the function that stops waiting.
 */
export function atExpiry(expiresAt: Date, expired: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const remaining = expiresAt.getTime() - Date.now();
    if (remaining <= 0) {
      timer = undefined;
      expired();
      return;
    }
    timer = setTimeout(arm, Math.min(remaining, longestTimerMs));
  };
  arm();
  return () => clearTimeout(timer);
}

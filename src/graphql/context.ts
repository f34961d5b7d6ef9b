import type DataLoader from 'dataloader';
import { responsePathAsArray, type FieldNode, type GraphQLResolveInfo } from 'graphql';
import type { Session } from '../engine/index.js';
import { ApiError } from '../errors.js';
import type { Registry, ResourceDeclaration, Row } from '../model/index.js';
import { recordPlacement, type RecordPlacement } from './answer-size.js';
import { limits, tooManyRecords, tooManyWrites } from './limits.js';

/** A record as a GraphQL node: its declaration and its stored row. */
export interface NodeValue {
  resource: ResourceDeclaration;
  row: Row;
}

/** A Relay connection: one page of records, and where it sits in the list. */
export interface ConnectionValue {
  /** Undefined for a relationship Stratum does not model yet, which is always empty. */
  resource: ResourceDeclaration | undefined;
  rows: readonly Row[];
  offset: number;
  hasMore: boolean;
  /** Counted only when the query asks for `pageInfo { totalRecords }`. */
  total: number | undefined;
}

export const emptyConnection = (resource: ResourceDeclaration | undefined): ConnectionValue => ({
  resource,
  rows: [],
  offset: 0,
  hasMore: false,
  total: 0,
});

/**
 * What the resolvers of one request share: the caller's session (the mutation's batch for a
 * mutation), the declarations, the batch loaders of its relationship fields, and, in a mutation, the order its
 * operations run in.
 */
export class RequestContext {
  /** One loader per relationship field of the query, so sibling records load in one batch. */
  readonly loaders = new Map<FieldNode, DataLoader<NodeValue, ConnectionValue | null, unknown>>();
  /** A field that failed is reported once, not once per record that holds it. */
  readonly reportedFields = new Set<FieldNode>();
  /** Set once the answer would hold more than one may: the request is refused with it, at the field that overflowed. */
  overflow: { error: ApiError; path: readonly (string | number)[] } | undefined;
  /** What a record adds to the answer at each `edges` of the query, read from the query once. */
  private readonly placements = new Map<readonly FieldNode[], RecordPlacement>();
  private failed = false;
  private queue: Promise<unknown> = Promise.resolve();
  private served = 0;
  private writes = 0;

  constructor(
    readonly session: Session,
    readonly registry: Registry,
    readonly mutation: boolean,
  ) {}

  /**
   * What a record of `resource` adds to the answer at the `edges` field being resolved. graphql-js
   * resolves a field of every record at one place of the query with the same list of field nodes.
   */
  placementAt(resource: ResourceDeclaration, edges: GraphQLResolveInfo): RecordPlacement {
    let placement = this.placements.get(edges.fieldNodes);
    if (placement === undefined) {
      placement = recordPlacement(resource, edges);
      this.placements.set(edges.fieldNodes, placement);
    }
    return placement;
  }

  /**
   * Admits a page of records into the answer, before any of their fields is resolved: counts them
   * against the records an answer may hold, and reserves the `bytes` they will write into it from
   * the caller's answer memory. False once the answer would hold too much: this list and every one
   * after it stay empty, and the request is refused.
   */
  async admit(rows: readonly Row[], bytes: number, edges: GraphQLResolveInfo): Promise<boolean> {
    if (this.overflow !== undefined) return false;
    this.served += rows.length;
    try {
      if (this.served > limits.records) throw tooManyRecords();
      await this.session.reserveAnswer(rows, bytes, {
        argument: 'first',
        advice: `ask for fewer records (a smaller first, ids or a filter), or for fewer fields and aliases of each (the ${rows.length} records here take about ${Math.ceil(bytes / rows.length / 1024)} KiB each).`,
      });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.overflow ??= { error, path: responsePathAsArray(edges.path) };
    }
    return this.overflow === undefined;
  }

  /** Counts a record a mutation is about to write; one too many fails the mutation. */
  countWrite(): void {
    if (++this.writes > limits.writes) throw tooManyWrites();
  }

  /**
   * Runs database work of a resolver. In a mutation, one piece of work at a time, in the order the
   * resolvers asked: every statement shares the mutation's transaction, and after a failure the
   * transaction will be rolled back (on PostgreSQL it refuses every further statement), so the work
   * that follows is skipped and its fields read null; the failure alone is reported.
   */
  run<T>(work: () => Promise<T>): Promise<T | null> {
    if (!this.mutation) return work();
    const next = this.queue.then(async () => {
      if (this.failed) return null;
      try {
        return await work();
      } catch (error) {
        this.failed = true;
        throw error;
      }
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}

import type DataLoader from 'dataloader';
import type { FieldNode } from 'graphql';
import type { Session } from '../engine/index.js';
import type { ApiError } from '../errors.js';
import type { Registry, ResourceDeclaration, Row } from '../model/index.js';
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
  /** Set once the answer holds more records than one may: the request is refused with it. */
  overflow: ApiError | undefined;
  private failed = false;
  private queue: Promise<unknown> = Promise.resolve();
  private served = 0;
  private writes = 0;

  constructor(
    readonly session: Session,
    readonly registry: Registry,
    readonly mutation: boolean,
  ) {}

  /** Counts records placed in the answer; false once there are too many, and the lists stay empty from then on. */
  serve(count: number): boolean {
    if (this.overflow !== undefined) return false;
    this.served += count;
    if (this.served > limits.records) this.overflow = tooManyRecords();
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

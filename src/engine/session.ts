import type { TokenRequest } from '../auth/api-tokens.js';
import type { TokenRecord, TokenView } from '../auth/token-views.js';
import type { TrackedKind } from '../auth/tokens.js';
import { ApiError } from '../errors.js';
import type { ListingRelationship, ResourceDeclaration, Row, StateRecords, ToOne } from '../model/index.js';
import { countUse } from './counts.js';
import { loadIncluded, type IncludeResult } from './include.js';
import type { InputReader } from './input.js';
import { locateRecord, type CollectionAddress, type RecordAddress } from './locate.js';
import { listOptions, pageOf, sortKeys, type ListDraft } from './list-input.js';
import type { IncludeTree, ReadOptions } from './options.js';
import { permissionsIn, type PermissionPlace } from './permissions.js';
import { authorizeCreation, usableRecord } from './record-use.js';
import type { ListResult } from './queries.js';
import { listRecords, readRelated, withIncluded, type RecordPage, type RecordResult } from './read.js';
import { listRelatedPages } from './related.js';
import {
  changeMembers,
  readRelationship,
  relationshipNamed,
  updateRelationship,
  type Linkage,
  type NamedRelationship,
  type RelationshipContent,
} from './relationships.js';
import { inTransaction, type Scope } from './scope.js';
import type { StateAccess, StatePlace } from './state-access.js';
import { WorkspaceState } from './state.js';
import { issueToken, listEveryToken, listTokens, revokeAnyToken, revokeToken, type IssuedToken } from './tokens.js';
import { documentTag, entityTag, tagMatches, type Precondition } from './versions.js';
import { createRecord, deleteRecord, updateRecord } from './write.js';

/** A record as a read finds it: its entity tag, and the record unless the client's copy (If-None-Match) is current. */
export interface RecordRead {
  etag: string;
  result: RecordResult | undefined;
}

/** A new record as stored, and its entity tag. */
export interface CreatedRecord extends RecordResult {
  etag: string;
}

/**
 * One caller's requests to the engine: every operation a transport can ask for, each confined to
 * what the caller may see and may change. A transport opens one per request, runs its operations on
 * it (a batch of them as one transaction), and closes it once the answer has left, which gives
 * back the memory its records held.
 */
export class Session {
  constructor(private readonly scope: Scope) {}

  /** One page of a collection's records, filtered and sorted, with what it includes. */
  list(collection: CollectionAddress, draft: ListDraft): Promise<RecordPage> {
    return listRecords(this.scope, collection, listOptions(this.scope.engine.registry, collection.resource, draft));
  }

  /** One record, with what it includes; without it when `ifNoneMatch` names its current tag. */
  async read(address: RecordAddress, options: ReadOptions, ifNoneMatch?: string): Promise<RecordRead> {
    const row = await locateRecord(this.scope, address);
    if (Object.keys(options.include).length > 0) {
      // The document holds the included records too: its tag is known only once they are read.
      const result = await withIncluded(this.scope, address.resource, row, options);
      const etag = documentTag(address.resource, row, result.included);
      return { etag, result: ifNoneMatch !== undefined && tagMatches(ifNoneMatch, etag) ? undefined : result };
    }
    const etag = entityTag(address.resource, row);
    if (ifNoneMatch !== undefined && tagMatches(ifNoneMatch, etag)) return { etag, result: undefined };
    return { etag, result: await withIncluded(this.scope, address.resource, row, options) };
  }

  /** The stored row of one record the caller may see (404 otherwise). */
  find(address: RecordAddress): Promise<Row> {
    return locateRecord(this.scope, address);
  }

  /** The record a to-one relationship of a record links, or null. */
  readRelated(address: RecordAddress, relationship: ToOne, options: ReadOptions): Promise<RecordResult | null> {
    return readRelated(this.scope, address, relationship, options);
  }

  /** The related records `include` names, of records already read, in one query per relationship and level. */
  include(resource: ResourceDeclaration, rows: readonly Row[], include: IncludeTree): Promise<IncludeResult> {
    return loadIncluded(this.scope, resource, rows, include, new Map());
  }

  /** A page of a to-many relationship for each of many records at once, in one query. */
  relatedPages(relationship: ListingRelationship, ownerIds: readonly string[], draft: ListDraft): Promise<Map<string, ListResult>> {
    const { registry } = this.scope.engine;
    return listRelatedPages(this.scope, relationship, ownerIds, listOptions(registry, registry.target(relationship), draft));
  }

  /** The relationship `name` of a resource, declared or only known to clients (404 otherwise). */
  relationship(resource: ResourceDeclaration, name: string): NamedRelationship {
    return relationshipNamed(this.scope, resource, name);
  }

  /** The linkage of a relationship of a record: a to-many one as a page (`draft`: its sort and page) of the records it lists. */
  readRelationship(address: RecordAddress, relationship: NamedRelationship, draft: ListDraft = {}): Promise<RelationshipContent> {
    const { registry } = this.scope.engine;
    const target = relationship.kind === 'toMany' || relationship.kind === 'manyToMany' ? registry.target(relationship) : address.resource;
    return readRelationship(this.scope, address, relationship, {
      sort: sortKeys(registry, target, draft.sort),
      page: pageOf(draft.page),
    });
  }

  async create(collection: CollectionAddress, readInput: InputReader, options: ReadOptions): Promise<CreatedRecord> {
    const result = await createRecord(this.scope, collection, readInput, options);
    return { ...result, etag: entityTag(result.resource, result.row) };
  }

  update(address: RecordAddress, readInput: InputReader, precondition?: Precondition): Promise<void> {
    return updateRecord(this.scope, address, readInput, precondition);
  }

  delete(address: RecordAddress, precondition?: Precondition): Promise<void> {
    return deleteRecord(this.scope, address, precondition);
  }

  /** Links the to-one relationship `name` of a record to another record, or unlinks it (null). */
  link(address: RecordAddress, name: string, readLinkage: () => Linkage | null | Linkage[], precondition?: Precondition): Promise<void> {
    return updateRelationship(this.scope, address, name, readLinkage, precondition);
  }

  /** Adds records to the relationship `name` of a record, or removes them: refused once the record is found writable (403). */
  changeMembers(address: RecordAddress, name: string, precondition?: Precondition): Promise<void> {
    return changeMembers(this.scope, address, name, precondition);
  }

  /**
   * A record the caller may `action` (404, 403), for work done with it beyond the API; its secrets
   * opened when `unseal` says so, for that work alone.
   */
  usable(address: RecordAddress, action: 'update' | 'delete', unseal = false): Promise<Row> {
    return usableRecord(this.scope, address, action, unseal);
  }

  /** Adds one to a count the server keeps on a record the caller can see (a module's downloads), without losing concurrent ones. */
  countUse(address: RecordAddress, attribute: string): Promise<void> {
    return countUse(this.scope, address, attribute);
  }

  /** Refuses (404, 403) a caller who may not create records in a collection. */
  mayCreate(collection: CollectionAddress): Promise<void> {
    return authorizeCreation(this.scope, collection);
  }

  /** The caller's permission flags in a tenant, or in a record directly inside it (404 when it cannot see it). */
  permissions(place: PermissionPlace): Promise<Record<string, boolean>> {
    return permissionsIn(this.scope, place);
  }

  /** A workspace's Terraform state, as the caller (or a job's state credential) reaches it. */
  state(records: StateRecords, place: StatePlace, access: StateAccess): WorkspaceState {
    return new WorkspaceState(this.scope, records, place, access);
  }

  /** Issues a team or personal token for the caller; the token itself is shown this once. */
  issueToken(kind: TrackedKind, request: TokenRequest): Promise<IssuedToken> {
    return issueToken(this.scope, kind, request);
  }

  /** The live tokens of a kind the caller's list shows. */
  listTokens(kind: TrackedKind): Promise<TokenView[]> {
    return listTokens(this.scope, kind);
  }

  /** Revokes a token the caller may revoke, with every token created from it (404 for any other). */
  revokeToken(kind: TrackedKind, id: string): Promise<void> {
    return revokeToken(this.scope, kind, id);
  }

  /** Every token of every owner (administrators only): the live ones, or every one. */
  listEveryToken(includeInactive: boolean): Promise<TokenRecord[]> {
    return listEveryToken(this.scope, includeInactive);
  }

  /** Revokes any token with its descendants (administrators only); the ids it marked. */
  revokeAnyToken(id: string): Promise<string[]> {
    return revokeAnyToken(this.scope, id);
  }

  /**
   * Runs `work` as one transaction: every operation it asks of the session it is given commits
   * together or not at all. A transaction that loses to a concurrent one runs again, whole.
   */
  async batch<T>(work: (session: Session) => Promise<T>): Promise<T> {
    if (this.scope.db.isTransaction) return work(this);
    return inTransaction(this.scope, undefined, (scope) => work(new Session(scope)));
  }

  /**
   * Reserves, against the same memory as the records' own, what placing records already read in
   * the answer adds to it: `bytes`, as the transport counts what it writes for them. A record's
   * first placement shares what its read reserved; each further one (the same record reached again,
   * or its values written under several names) is counted in full. More than one answer may hold
   * is refused (400, `response_too_large`) at `argument`, with `advice` on what to ask for instead.
   */
  reserveAnswer(rows: readonly Row[], bytes: number, refusal: { argument: string; advice: string }): Promise<void> {
    return this.scope.budget.reservePlacement(
      rows,
      bytes,
      (limit) =>
        new ApiError(400, {
          code: 'response_too_large',
          detail: `The answer would hold more than the ${limit} MiB one answer may hold; ${refusal.advice}`,
          at: { argument: refusal.argument },
        }),
    );
  }

  /** Gives back the memory the answer's records held: the answer has left, or never will. */
  close(): void {
    this.scope.budget.close();
  }
}

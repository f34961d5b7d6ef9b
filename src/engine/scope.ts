import type { Kysely } from 'kysely';
import type { ApiTokens } from '../auth/api-tokens.js';
import type { Caller } from '../auth/caller.js';
import type { Registry, ResourceDeclaration } from '../model/index.js';
import type { PolicyTable } from '../policy/rules.js';
import type { SecretCipher } from '../secrets/cipher.js';
import type { Database, Store } from '../store/database.js';
import { databaseApiError, retryOnContention } from '../store/failures.js';
import type { QueryShapes } from '../store/query-shapes.js';
import type { QueryShape } from './query-shapes.js';
import type { ResponseBudget, ResponseMemory } from './response-memory.js';

/** What the operations on records need: the declarations, who may write them, the store and the secrets' key. */
export interface EngineParts {
  registry: Registry;
  policies: PolicyTable;
  store: Store;
  /** Seals secrets; undefined in an engine that writes none (the console's). */
  cipher: SecretCipher | undefined;
  /** The memory answers may hold, each and together. */
  memory: ResponseMemory;
  /** Team and personal API tokens: minting them, and their live checks on this server; undefined in an engine that issues none. */
  tokens: ApiTokens | undefined;
  /** The hottest queries, compiled once per shape for this store. */
  shapes: QueryShapes<QueryShape>;
  /** Hears what writes announce, once their transaction has committed. */
  announce: (announcement: Announcement) => void;
}

/** Something a write says happened (a job's status changed), for whoever listens beyond the store. */
export interface Announcement {
  topic: string;
  payload: Readonly<Record<string, unknown>>;
}

/** What the SQL of a query is built from: the declarations, who may read global records, and the store's handle and dialect. */
export interface QueryBasis {
  registry: Registry;
  policies: Pick<PolicyTable, 'readRule'>;
  store: Pick<Store, 'db' | 'dialect'>;
}

/**
 * One caller's view of the store, what the operations behind a Session share: every query made
 * through it is confined to what the caller may see.
 */
export interface Scope {
  engine: EngineParts;
  caller: Caller;
  /** The database, or the transaction the operation runs in. */
  db: Kysely<Database>;
  /** The memory the rows of this caller's answer hold; the transport releases it once the answer is built. */
  budget: ResponseBudget;
  /** What the write in progress announced, heard once it commits; undefined outside a write. */
  heard?: Announcement[];
}

/**
 * Runs work as one transaction, committed (and on both stores flushed to disk) before it returns;
 * inside an open transaction (a batch of operations), as part of it. Database failures leave as API
 * errors, a unique violation naming the attribute of `resource`.
 */
export async function inTransaction<T>(
  scope: Scope,
  resource: ResourceDeclaration | undefined,
  work: (scope: Scope) => Promise<T>,
): Promise<T> {
  return inWrite(scope, resource, true, work);
}

/**
 * Runs a write: as one transaction when `atomic`, else statement by statement (each committed and
 * flushed as it runs), for a write that is one statement after its reads. Inside an open transaction
 * it is part of that one either way; a transaction of its own runs again when it loses to a
 * concurrent one. Database failures leave as API errors.
 */
export async function inWrite<T>(
  scope: Scope,
  resource: ResourceDeclaration | undefined,
  atomic: boolean,
  work: (scope: Scope) => Promise<T>,
): Promise<T> {
  try {
    if (scope.db.isTransaction) return await work(scope);
    // What the write announces is heard after it committed, once, whatever attempts it took; never
    // when it failed.
    const heard: Announcement[] = [];
    const attempt = (given: Scope) => {
      heard.length = 0;
      return work({ ...given, heard });
    };
    const result = atomic
      ? await retryOnContention(() => scope.db.transaction().execute((trx) => attempt({ ...scope, db: trx })))
      : await retryOnContention(() => attempt(scope));
    for (const announcement of heard) scope.engine.announce(announcement);
    return result;
  } catch (error) {
    throw databaseApiError(error, resource) ?? error;
  }
}

import type { Kysely } from 'kysely';
import type { ApiTokens } from '../auth/api-tokens.js';
import type { Caller } from '../auth/caller.js';
import type { Registry, ResourceDeclaration } from '../model/index.js';
import type { CreateDefaults } from './attribute-values.js';
import type { PolicyTable } from '../policy/rules.js';
import type { SecretCipher } from '../secrets/cipher.js';
import type { Database, Store } from '../store/database.js';
import { databaseApiError, retryOnContention } from '../store/failures.js';
import type { QueryShapes } from '../store/query-shapes.js';
import type { QueryShape } from './query-shapes.js';
import type { ResponseBudget, ResponseMemory } from './response-memory.js';
import { inUnitOfWork, UnitOfWork, type Provenance } from './unit-of-work.js';

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
  /** Told once a write that emitted events has committed: their outbox rows are there to deliver. */
  eventsCommitted: () => void;
  /** The values an operator chose for attributes a create leaves out, by type, over the declarations' defaults. */
  createDefaults: CreateDefaults;
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
  /** Where the caller's work comes from, as its changes record it. */
  provenance: Provenance;
  /** The database, or the transaction the operation runs in. */
  db: Kysely<Database>;
  /** The memory the rows of this caller's answer hold; the transport releases it once the answer is built. */
  budget: ResponseBudget;
  /** What the write in progress changed and emitted, written with it; undefined outside a write. */
  work?: UnitOfWork;
}

/**
 * Runs a write as one transaction, committed (and on both stores flushed to disk) before it
 * returns, with its unit of work: the changes it records and the events it emits are written in
 * the same transaction, so they exist exactly when the write does. Inside an open transaction (a
 * batch) it is part of that one. A transaction that loses to a concurrent one runs again, whole,
 * with a fresh unit. The events it emitted are outbox rows of its transaction: once it has
 * committed, the engine is told, so that they are delivered at once. Database failures leave as
 * API errors, a unique violation naming the attribute of `resource`.
 */
export async function inTransaction<T>(
  scope: Scope,
  resource: ResourceDeclaration | undefined,
  work: (scope: Scope) => Promise<T>,
): Promise<T> {
  try {
    if (scope.db.isTransaction) return await work(scope);
    const { result, unit } = await retryOnContention(() =>
      inUnitOfWork(scope.db, scope.caller, scope.provenance, (trx, unit) => work({ ...scope, db: trx, work: unit })),
    );
    if (unit.emitted) scope.engine.eventsCommitted();
    return result;
  } catch (error) {
    throw databaseApiError(error, resource) ?? error;
  }
}

/**
 * Runs a write that is one statement on PostgreSQL (`oneStatement`), its change row included (a
 * data-modifying WITH), outside a transaction: the statement commits alone, with its change or not
 * at all, in one round trip. `work`, told `single`, must then write what its unit records itself:
 * anything left in the unit is a bug. On the embedded store, inside an open transaction, or for a
 * write of more statements, it is a transaction like any other.
 */
export async function inOneStatement<T>(
  scope: Scope,
  resource: ResourceDeclaration | undefined,
  oneStatement: boolean,
  work: (scope: Scope, single: boolean) => Promise<T>,
): Promise<T> {
  if (!oneStatement || scope.db.isTransaction || scope.engine.store.dialect !== 'postgres')
    return inTransaction(scope, resource, (tx) => work(tx, false));
  try {
    return await retryOnContention(async () => {
      const unit = new UnitOfWork(scope.caller, scope.provenance);
      const done = await work({ ...scope, work: unit }, true);
      if (!unit.isEmpty()) throw new Error('a one-statement write left changes or events to write apart from it');
      return done;
    });
  } catch (error) {
    throw databaseApiError(error, resource) ?? error;
  }
}

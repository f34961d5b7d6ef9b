import type { ApiTokens } from '../auth/api-tokens.js';
import { serviceCaller, type Caller } from '../auth/caller.js';
import type { ApiError } from '../errors.js';
import type { Registry, SecretReader } from '../model/index.js';
import { permissionFlagNames } from '../policy/capabilities.js';
import { PolicyTable, type RecordRules, type TokenRules } from '../policy/rules.js';
import type { SecretCipher } from '../secrets/cipher.js';
import type { Store } from '../store/database.js';
import { databaseApiError, isContention as lostToConcurrentWrite } from '../store/failures.js';
import { QueryShapes } from '../store/query-shapes.js';
import type { QueryShape } from './query-shapes.js';
import { ResponseMemory } from './response-memory.js';
import { buildShape } from './shaped-queries.js';
import { checkCreateDefaults, type CreateDefaults } from './attribute-values.js';
import type { EngineParts, Scope } from './scope.js';
import type { Provenance } from './unit-of-work.js';
import { openedRecord } from './seal.js';
import { serviceWork, type ServiceWork } from './service-work.js';
import { Session } from './session.js';

export interface EngineDependencies {
  registry: Registry;
  /** Who may create, update and delete each type of record, and who may read each global one. */
  recordPolicies: Readonly<Record<string, RecordRules>>;
  store: Store;
  /** Seals secret values; a console that writes no records opens the engine without it. */
  cipher: SecretCipher | undefined;
  /** Who may create and revoke API tokens, and administer every one. */
  tokenPolicies: TokenRules;
  /** Mints team and personal tokens, and checks them; a console that issues none opens the engine without it. */
  apiTokens: ApiTokens | undefined;
  /** The memory the records of answers may hold: `perAnswer` bytes each, `total` together. */
  responseMemory: { perAnswer: number; total: number };
  /** Told once a write that emitted events (a job's status changed) has committed, to deliver them from the outbox; nobody by default. */
  eventsCommitted?: () => void;
  /** The values an operator chose for attributes a create leaves out, over the declared defaults; none by default. */
  createDefaults?: CreateDefaults;
}

/**
 * The operations on records, for any transport: a transport opens a Session for each request's
 * caller and asks everything of it. Checks its declarations and write rules once, at start.
 */
export class Engine {
  readonly registry: Registry;
  private readonly parts: EngineParts;

  constructor(dependencies: EngineDependencies) {
    const { registry, recordPolicies, tokenPolicies, apiTokens, store, cipher, responseMemory, eventsCommitted } = dependencies;
    this.registry = registry;
    const createDefaults = dependencies.createDefaults ?? new Map();
    checkCreateDefaults(registry, createDefaults);
    const parts: EngineParts = {
      registry,
      policies: new PolicyTable(registry, recordPolicies, tokenPolicies),
      tokens: apiTokens,
      store,
      cipher,
      memory: new ResponseMemory(responseMemory.perAnswer, responseMemory.total),
      shapes: new QueryShapes(store, (shape: QueryShape, values) => buildShape(parts, shape, values)),
      eventsCommitted: eventsCommitted ?? (() => undefined),
      createDefaults,
    };
    this.parts = parts;
  }

  /** A session of `caller`'s, whose writes record `provenance` (the transport, the request) with their changes. */
  open(caller: Caller, provenance: Provenance): Session {
    const { parts } = this;
    return new Session({ engine: parts, caller, provenance, db: parts.store.db, budget: parts.memory.budget() });
  }

  /**
   * The service's own access, for a request that carries no caller but proved itself otherwise (a
   * download link the service signed for a caller who could read the record): a session that sees
   * every record, and a tenant's credentials opened, for work beyond the API (reading a module's
   * repository). Never for a request that has not proved itself.
   */
  asService(): ServiceAccess {
    const scope = this.serviceScope({ transport: 'service' });
    return {
      session: new Session(scope),
      secrets: (tenantId) => ({ withSecrets: (resource, id) => openedRecord(scope, resource, id, tenantId) }),
    };
  }

  /**
   * The service's own work beside the requests (running jobs, firing schedules, recovering after a
   * stop) as `transport` names it, for the folder that owns that work: reads of every record, and
   * writes through the unit of work.
   */
  work(transport: 'executor' | 'scheduler' | 'recovery' | 'service' | 'console', caller: Caller = serviceCaller): ServiceWork {
    return serviceWork({ ...this.serviceScope({ transport }), caller }, transport);
  }

  /** The service itself as the caller: it sees every record. */
  private serviceScope(provenance: Provenance): Scope {
    const { parts } = this;
    return { engine: parts, caller: serviceCaller, provenance, db: parts.store.db, budget: parts.memory.budget() };
  }

  /** The names of the permission flags `Session.permissions` answers with. */
  permissionNames(): string[] {
    return permissionFlagNames(this.registry);
  }
}

/** What the service may do on its own behalf: read every record, and use a tenant's credentials. */
export interface ServiceAccess {
  /** Closed, like any session, once the answer has left. */
  session: Session;
  secrets(tenantId: string): SecretReader;
}

/** The API error a failure of the store is answered with; undefined for one nobody can explain (a bug). */
export function explainFailure(error: unknown): ApiError | undefined {
  return databaseApiError(error);
}

/**
 * Whether an operation of a batch failed because its transaction lost to a concurrent one: a batch
 * whose work reports such a failure instead of throwing it (GraphQL collects its resolvers' errors)
 * throws it on, so that `Session.batch` runs it again.
 */
export function isContention(error: unknown): boolean {
  return lostToConcurrentWrite(error);
}

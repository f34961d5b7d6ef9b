import { notFound } from '../errors.js';
import type { ResourceDeclaration, Row } from '../model/index.js';
import { locateParent, parentFirst, pathIdsOf, tenantIdOf, type CollectionAddress } from './locate.js';
import { insertRow } from './queries.js';
import type { Scope } from './scope.js';
import type { ChangeRow } from './unit-of-work.js';

/** The id of the tenant a write lands in, found when first asked for: a create may never need it. */
export type TenantId = () => Promise<string>;

/** What asking for the tenant of a global record is: a bug, since the registry lets no link or rule of one need it. */
export const noTenant = (resource: ResourceDeclaration) => new Error(`a ${resource.type} record lies in no tenant`);

/**
 * How a create finds its parent: only when something before the INSERT needs it (the caller's
 * capabilities in its tenant, a hook asking for the tenant, a link to check, a refusal, which must
 * name a missing parent first). Otherwise the INSERT checks that the caller can see the parent
 * itself, and the create is one statement instead of two, with the same answers in the same order.
 */
export class CreatePlan {
  private located: Promise<Row | undefined> | undefined;
  private tenant: Promise<string> | undefined;

  constructor(
    private readonly tx: Scope,
    private readonly collection: CollectionAddress,
    /** The new record's id: the tenant's own, when it is one. */
    private readonly id: string,
  ) {}

  /** The parent's row, looked up once (404 naming the first step of its path that is not there). */
  parent(): Promise<Row | undefined> {
    return (this.located ??= locateParent(this.tx, this.collection.ancestors));
  }

  /** The tenant the record lands in, through its parent. */
  readonly tenantId: TenantId = () =>
    (this.tenant ??= this.tx.engine.registry.isGlobal(this.collection.resource)
      ? Promise.reject(noTenant(this.collection.resource))
      : this.parent().then((row) => {
          const step = this.collection.ancestors.at(-1);
          return step === undefined || row === undefined ? this.id : tenantIdOf(this.tx, step.resource, row);
        }));

  /** Runs the guards of the create; any refusal answers a missing parent first, as a lookup first would. */
  guard<T>(guards: () => Promise<T>): Promise<T> {
    return parentFirst(this.collection.ancestors, () => this.parent(), guards);
  }

  /**
   * Inserts the row, under a parent the caller can see: checked by the INSERT itself unless it was
   * looked up; with `change`, its change row in the same statement.
   */
  async insert(resource: ResourceDeclaration, columns: Row, change?: ChangeRow): Promise<Row> {
    const { ancestors } = this.collection;
    const step = ancestors.at(-1);
    const unchecked = step !== undefined && this.located === undefined;
    const inserted = await insertRow(
      this.tx,
      resource,
      columns,
      unchecked ? { resource: step.resource, pathIds: pathIdsOf(ancestors) } : undefined,
      change,
    );
    if (inserted !== undefined) return inserted;
    await this.parent();
    // Visible now, though the INSERT found it not: changed in between.
    throw notFound(step?.resource.type ?? resource.type, step?.id ?? this.id);
  }
}

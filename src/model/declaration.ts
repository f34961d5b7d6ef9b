import type { EventName, Events } from './events.js';
import type { Attribute, AttributeValues } from './attributes.js';
import { auditAttributes } from './audit.js';
import type { Relationship } from './relationships.js';

/** A stored record as the query layer returns it: column name to value. */
export type Row = Record<string, unknown>;

/**
 * The tables, as the query layer sees them: declared by the resources at run time, so rows are
 * plain records and each resource's declaration gives them meaning.
 */
export type Database = Record<string, Row>;

export type Operation = 'list' | 'create' | 'read' | 'update' | 'delete';
export const allOperations: readonly Operation[] = ['list', 'create', 'read', 'update', 'delete'];
/** The operations that only read, for records the server writes alone. */
export const readOperations: readonly Operation[] = ['list', 'read'];

/** Opens, for a hook, the secrets of a record of the written one's tenant. */
export interface SecretReader {
  /**
   * A record of the tenant linked by the written one, with its secrets opened: for a hook that acts
   * with the credentials it links (a module read with its VCS connection's token). Never returned
   * to a client. Undefined when there is none in the tenant.
   */
  withSecrets(resource: ResourceDeclaration, id: string): Promise<Row | undefined>;
}

/** What a write hook may do besides changing the values: read the tenant, create records beside it. */
export interface WriteContext extends SecretReader {
  /** The tenant record the written record lives in. */
  tenant(): Promise<Row>;
  /**
   * Creates a record of `resource` under `parentId`, in the same transaction and as the same caller,
   * with `links` (to-one relationships by name, to records of the same tenant). Answers its id.
   */
  insert(
    resource: ResourceDeclaration,
    parentId: string,
    values: AttributeValues,
    links?: Readonly<Record<string, string>>,
  ): Promise<string>;
  /**
   * Deletes the records of `resource` under `parentId` that the hook derives and derives again:
   * every one but those `keep` accepts (records a client made by hand).
   */
  removeChildren(resource: ResourceDeclaration, parentId: string, keep?: (row: Row) => boolean): Promise<void>;
  /** The records of `resource` under `parentId`, as stored: what a hook keeps in step with their parent. */
  children(resource: ResourceDeclaration, parentId: string): Promise<Row[]>;
  /** Sets attributes of a record the write made or changed, which the server maintains (read-only ones too). */
  set(resource: ResourceDeclaration, id: string, values: AttributeValues): Promise<void>;
  /** The newest record of `resource` (by creation) whose `column` holds `value`, as stored: what a hook keeps another record in step with. */
  newest(resource: ResourceDeclaration, column: string, value: string): Promise<Row | undefined>;
  /**
   * How many records of `resource` have `column` equal to `value` and an attribute among `among`,
   * counted up to `limit` (a bound a hook enforces needs no more): the jobs still waiting on a workspace.
   */
  countUpTo(
    resource: ResourceDeclaration,
    where: { column: string; value: string },
    among: { attribute: string; values: readonly string[] },
    limit: number,
  ): Promise<number>;
  /**
   * Says something happened (a job's status changed): an event of the event map, written with the
   * write and delivered once it commits, never if it fails.
   */
  emit<K extends EventName>(name: K, payload: Events[K]): void;
  /** Keeps a row beside the records the write made (a job's flow as it started), recorded as the kept table shows it. */
  keep(kept: KeptTable, row: Row): Promise<void>;
}

/** One create or update on its way to the database, before secrets are sealed. */
export interface PendingWrite extends WriteContext {
  /** The attribute values the write sets; a hook may add derived ones or throw an ApiError. */
  values: AttributeValues;
  /** The stored row of an update; undefined on create. */
  current: Row | undefined;
  /**
   * Whether the caller holds a capability on the written record, from a team of its tenant or a
   * grant reaching it (administrators hold every one): for a rule that depends on the values sent
   * (approving a job needs more than cancelling it).
   */
  holds(capability: string): Promise<boolean>;
}

/**
 * Records that make their members' directory groups into permissions inside a tenant (teams): the
 * attribute naming the group, the capabilities a write policy may require, and what one record grants.
 */
export interface Membership {
  groupAttribute: string;
  capabilities: readonly string[];
  grants(record: Row): readonly string[];
}

/**
 * Records that give the members of one directory group capabilities on a single record, beside what
 * memberships give in a whole tenant: on the record they live under (a grant on a workspace), and on
 * the records of other resources that link that one (`reaches`: a grant on a project covers the
 * project's workspaces). A grant's parent, and every record it reaches, lives directly in the tenant.
 */
export interface Grant {
  groupAttribute: string;
  /** What a grant may give: capabilities a membership grants too, so that write rules name one set. */
  capabilities: readonly string[];
  grants(record: Row): readonly string[];
  /** Records of `type` whose to-one relationship `through` links the grant's parent are reached as well. */
  reaches?: readonly { type: string; through: string }[];
}

export interface ResourceDeclaration {
  /** JSON:API type, also the path segment of the resource. */
  type: string;
  table: string;
  /** The resource every other one lives under: read access is granted per tenant record. */
  tenant?: true;
  /**
   * A record of the whole service, in no tenant (Terrakube's actions and federated credentials): it
   * has no parent, and who may read it is a row of the policy table rather than membership of a
   * tenant. The records under it are global too.
   */
  global?: true;
  /**
   * Ids the client chooses, for records named by their author (Terrakube's actions,
   * `terrakube.open-documentation`): a create must give one that matches `pattern`, and may give it
   * among the attributes too, as Terrakube's web UI does. Without this, every id is a UUID the
   * server assigns. `uuids` says the pattern admits only lower-case UUIDs, as the server's ids are
   * (Terrakube's web UI names webhooks and their events so): such a resource may have children,
   * whose paths then still name UUIDs alone above them.
   */
  clientIds?: { pattern: RegExp; description: string; uuids?: true };
  /**
   * Ids that are whole numbers counted up from 1 in the whole deployment (Terrakube's jobs, which
   * its web UI orders by `parseInt(id)` and shows as `#job-{id}`), assigned by the store in the
   * create's transaction, never reused. A path id that is not a positive whole number names no record.
   */
  sequenceIds?: true;
  /**
   * A required to-one link (not the parent) whose record's grants count on this record too, for
   * reads and writes alike: a job is reached by the team access of its workspace and of the
   * workspace's project. On create, the record the input links.
   */
  grantsThrough?: string;
  /**
   * Records that whoever holds a grant anywhere in the tenant reads, besides its members (Terrakube's
   * templates, which "Run now" lists for a team granted access to one workspace).
   */
  readByGrantHolders?: true;
  /**
   * A boolean attribute of the membership resource (a team's `readAuditTrail`) that gates reading
   * these records: inside a tenant only its administrators and the members of a membership record
   * with the flag set read them; every other member finds none (an empty list, 404 for one), as for
   * records of a tenant it cannot read. Checked in the SQL of every read, as tenancy is.
   */
  readFlag?: string;
  /**
   * Records the server appends once and never changes, which say themselves when and by whom (a
   * change record): `false` leaves out the createdBy, createdDate, updatedBy and updatedDate every
   * other record carries.
   */
  stamped?: false;
  /**
   * Lists without a sort read newest first, by id (UUIDv7, time-ordered), instead of in creation
   * order: for records that carry no createdDate.
   */
  newestFirst?: true;
  /**
   * Forms of JSON:API Atomic Operations that Elide takes and Terrakube's web UI sends for this
   * resource alone, accepted for it and refused for every other: `relationshipsBesideData`, the
   * to-many relationships whose linkage an add or update of a record may carry in a `relationships`
   * member of the operation beside `data` (checked for its form; the records it lists are those
   * created, changed and deleted under the record by their own operations); `updateAtCollection`,
   * an update whose href is the collection's, naming the record by `data.id`.
   */
  atomicForms?: { relationshipsBesideData: readonly string[]; updateAtCollection?: true };
  /**
   * The operations the API serves on these records, every one by default; records the server alone
   * writes (a job's steps, a workspace's state versions) are only listed and read, and their
   * relationships only read; a write through any other door (GraphQL, a batch) meets their write
   * policy, which refuses everyone.
   */
  operations?: readonly Operation[];
  /** The to-one relationship to the record this one lives under in paths. */
  parent?: string;
  attributes: Record<string, Attribute>;
  relationships: Record<string, Relationship>;
  /**
   * Record operations also served at the API root (`/api/v1/{type}/{id}`), as Terrakube clients
   * reach workspaces and references there; children are mounted under that path too.
   */
  atRoot?: readonly Operation[];
  /** A boolean attribute that, once true, hides the record and everything under it, and frees its unique names. */
  softDelete?: string;
  /** Attributes whose value is unique among the live records under one parent (a 409 names the attribute). */
  unique?: readonly string[];
  /**
   * Lists the API promises to serve fast however many records one parent holds: each entry is an
   * index on (parent, these attributes, id), for a sort on its first attribute or a filter on a
   * prefix of them. Every child resource also has (parent, createdDate, id), its default order
   * ((parent, id) with `newestFirst`).
   */
  indexes?: readonly (readonly string[])[];
  membership?: Membership;
  grant?: Grant;
  /** Derives values and checks rules that span attributes, in the write's transaction. */
  beforeWrite?: (write: PendingWrite) => Promise<void> | void;
  /**
   * Slow work a write needs that must not hold the database, such as reading a remote repository:
   * run before the write's transaction opens, once the caller is known to be allowed the write and
   * its input is valid, with what it sends and the stored record of an update. What it returns is
   * handed to afterCreate or afterUpdate. (In a batch, which is one transaction, it runs inside it.)
   */
  prepare?: (write: PreparingWrite, context: SecretReader) => Promise<unknown>;
  /** Runs in the create transaction after the record is inserted, with what `prepare` returned. */
  afterCreate?: (context: WriteContext, record: Row, prepared: unknown) => Promise<void>;
  /** Runs in the update transaction after the record is changed, with the changed row and what `prepare` returned. */
  afterUpdate?: (context: WriteContext, record: Row, prepared: unknown) => Promise<void>;
}

/** A create or update as `prepare` sees it, before its transaction: what it sends, and what is stored. */
export interface PreparingWrite {
  values: AttributeValues;
  /** The links it sends, by relationship name (null unlinks). */
  links: Readonly<Record<string, string | null>>;
  /** The stored row of an update; undefined on create. */
  current: Row | undefined;
}

/**
 * Completes a declaration with the audit attributes every record carries. Names are kept in
 * prototype-free objects, so a name like `constructor` or `__proto__` is unknown, as any other.
 */
export function defineResource(declaration: ResourceDeclaration): ResourceDeclaration {
  return {
    ...declaration,
    attributes: Object.assign(
      Object.create(null) as Record<string, Attribute>,
      declaration.attributes,
      declaration.stamped === false ? {} : auditAttributes,
    ),
    relationships: Object.assign(Object.create(null) as Record<string, Relationship>, declaration.relationships),
  };
}

/**
 * A table of rows the service keeps beside the declared records (a state lock, an API token), as
 * the audit trail names them: a type, and the columns a change shows under their names. Whatever is
 * not listed (a token's hash, a lock's raw info) never reaches a change row.
 */
export interface KeptTable {
  table: string;
  type: string;
  /** The column that is a row's id in the trail. */
  key: string;
  shown: Readonly<Record<string, string>>;
}

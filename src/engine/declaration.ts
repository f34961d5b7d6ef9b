import type { Transaction } from 'kysely';
import type { Caller } from '../auth/caller.js';
import type { Capability } from '../auth/policy.js';
import type { AttributeValues } from '../jsonapi/request-document.js';
import type { Database, Row } from '../store/database.js';

/**
 * A value that is write-only: stored encrypted, read back as null. `always` for credentials; or
 * only while a boolean attribute of the same record (`sensitive`) is true.
 */
export type Secrecy = { always: true } | { whileTrue: string };

/** A string attribute. Optional strings default to null and keep null as null. */
export interface TextAttribute {
  kind: 'text';
  required: boolean;
  nullable: boolean;
  default: string | null;
  /** Longest value in characters (code points). */
  maxLength: number;
  /** Longest value in UTF-8 bytes, for large texts. */
  maxBytes?: number;
  readOnly: boolean;
  secret?: Secrecy;
}

export interface EnumAttribute {
  kind: 'enum';
  values: readonly string[];
  required: boolean;
  /** Optional enumerations without a default take and keep null. */
  default: string | null;
  readOnly: boolean;
}

export interface BooleanAttribute {
  kind: 'boolean';
  default: boolean;
  readOnly: boolean;
}

export interface IntegerAttribute {
  kind: 'integer';
  default: number;
  min: number;
  max: number;
  readOnly: boolean;
}

export interface TimestampAttribute {
  kind: 'timestamp';
  readOnly: true;
}

export type Attribute = TextAttribute | EnumAttribute | BooleanAttribute | IntegerAttribute | TimestampAttribute;

/** A to-one relationship stored as a foreign key column on this resource's table. */
export interface ToOne {
  kind: 'toOne';
  type: string;
  column: string;
  /**
   * The related record owns this one besides its path parent: deleting it deletes this record, and
   * hiding it (soft delete) hides this record too.
   */
  owner: boolean;
  /** A write must link a record (not for the parent, which the path gives). */
  required: boolean;
}

/** A to-many relationship: the related table holds `column` pointing back at this resource. */
export interface ToMany {
  kind: 'toMany';
  type: string;
  column: string;
}

export type Relationship = ToOne | ToMany;

/** Who may create, update and delete records of a resource. */
export type WritePolicy = { administratorOnly: true } | { capability: Capability };

export type Operation = 'list' | 'create' | 'read' | 'update' | 'delete';
export const allOperations: readonly Operation[] = ['list', 'create', 'read', 'update', 'delete'];

export interface WriteContext {
  trx: Transaction<Database>;
  caller: Caller;
  now: string;
}

/** One create or update on its way to the database, before secrets are sealed. */
export interface PendingWrite extends WriteContext {
  /** The attribute values the write sets; a hook may add derived ones or report a problem. */
  values: AttributeValues;
  /** The stored row of an update; undefined on create. */
  current: Row | undefined;
  organizationId: string;
}

export interface ResourceDeclaration {
  /** JSON:API type, also the path segment of the resource. */
  type: string;
  table: string;
  /** The resource this one lives under in paths, through one of its to-one relationships. */
  parent?: { type: string; relationship: string };
  attributes: Record<string, Attribute>;
  relationships: Record<string, Relationship>;
  /**
   * Record operations also served at the API root (`/api/v1/{type}/{id}`), as Terrakube clients
   * reach workspaces and references there; children are mounted under that path too.
   */
  atRoot?: readonly Operation[];
  /** A boolean attribute that, once true, hides the record and everything under it. */
  softDelete?: string;
  write: WritePolicy;
  /** Derives values and checks rules that span attributes, in the write's transaction. */
  beforeWrite?: (write: PendingWrite) => Promise<void> | void;
  /** Runs in the create transaction after the record is inserted. */
  afterCreate?: (context: WriteContext, record: Row) => Promise<void>;
}

export type Resources = ReadonlyMap<string, ResourceDeclaration>;

/** Read-only attributes every record carries; a client may send them back, and they are ignored. */
export const auditAttributes: Record<string, Attribute> = {
  createdBy: { kind: 'text', required: false, nullable: false, default: null, maxLength: 512, readOnly: true },
  createdDate: { kind: 'timestamp', readOnly: true },
  updatedBy: { kind: 'text', required: false, nullable: false, default: null, maxLength: 512, readOnly: true },
  updatedDate: { kind: 'timestamp', readOnly: true },
};

/**
 * Read-only attribute names that clients echo back in bodies; ignored on input for every type so a
 * client can GET, edit and PATCH back.
 */
export const ignoredOnInput = new Set([
  'createdBy',
  'createdDate',
  'updatedBy',
  'updatedDate',
  'lastJobStatus',
  'lastJobDate',
  'incomplete',
]);

/**
 * Relationship names that Terrakube clients send or include but Stratum does not model yet, with
 * their kind: in a body they are accepted as null, in `include` they include nothing, and their
 * relationship endpoints read as empty.
 */
export const unmodeledRelationships: ReadonlyMap<string, 'toOne' | 'toMany'> = new Map([
  ['job', 'toMany'],
  ['history', 'toMany'],
  ['schedule', 'toMany'],
  ['agent', 'toOne'],
  ['webhook', 'toOne'],
  ['project', 'toOne'],
  ['ssh', 'toOne'],
  ['module', 'toMany'],
  ['provider', 'toMany'],
  ['workspaceTag', 'toMany'],
  ['notificationConfiguration', 'toMany'],
  ['access', 'toMany'],
  ['globalvar', 'toMany'],
  ['tag', 'toMany'],
]);

// Attribute builders keep declarations short and their defaults in one place.

export function text(options: {
  required?: boolean;
  max: number;
  maxBytes?: number;
  default?: string | null;
  secret?: Secrecy;
}): TextAttribute {
  const required = options.required ?? false;
  return {
    kind: 'text',
    required,
    nullable: !required,
    default: options.default ?? null,
    maxLength: options.max,
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    ...(options.secret === undefined ? {} : { secret: options.secret }),
    readOnly: false,
  };
}

/** An enumeration: required, or optional with a default (null when it has none). */
export function oneOf(values: readonly string[], options: { required: true } | { default: string | null }): EnumAttribute {
  if ('required' in options) return { kind: 'enum', values, required: true, default: null, readOnly: false };
  return { kind: 'enum', values, required: false, default: options.default, readOnly: false };
}

export function flag(fallback: boolean): BooleanAttribute {
  return { kind: 'boolean', default: fallback, readOnly: false };
}

/** A value the server maintains; clients read it and may echo it back, where it is ignored. */
export function readOnly<A extends TextAttribute | BooleanAttribute>(attribute: A): A {
  return { ...attribute, readOnly: true };
}

export function integer(fallback: number, min: number, max: number): IntegerAttribute {
  return { kind: 'integer', default: fallback, min, max, readOnly: false };
}

export function toOne(type: string, column: string, options: { owner?: boolean; required?: boolean } = {}): ToOne {
  return { kind: 'toOne', type, column, owner: options.owner ?? false, required: options.required ?? false };
}

export function toMany(type: string, column: string): ToMany {
  return { kind: 'toMany', type, column };
}

/** The column of an attribute: its name in snake case. */
export function columnOf(attribute: string): string {
  return attribute.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export type SecretAttribute = TextAttribute & { secret: Secrecy };

/** Whether an attribute may hold a secret: never filtered, sorted or read back while it does. */
export function maySecret(attribute: Attribute | undefined): attribute is SecretAttribute {
  return attribute?.kind === 'text' && attribute.secret !== undefined;
}

/** Attributes whose value may be a secret, by name. */
export function secretAttributes(resource: ResourceDeclaration): [string, SecretAttribute][] {
  return Object.entries(resource.attributes).filter((entry): entry is [string, SecretAttribute] => maySecret(entry[1]));
}

/** The declaration of `type`, which the declaration of `user` links; a missing one is a mistake in the declarations. */
export function declared(resources: Resources, type: string, user: string): ResourceDeclaration {
  const resource = resources.get(type);
  if (resource === undefined) throw new Error(`${user} links an undeclared type ${type}`);
  return resource;
}

/** The link of a resource to its parent in paths. */
export function parentLink(resource: ResourceDeclaration): ToOne | undefined {
  if (resource.parent === undefined) return undefined;
  return resource.relationships[resource.parent.relationship] as ToOne;
}

/** Completes a declaration with the audit attributes every record carries. */
export function defineResource(declaration: ResourceDeclaration): ResourceDeclaration {
  return { ...declaration, attributes: { ...declaration.attributes, ...auditAttributes } };
}

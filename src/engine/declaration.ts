import type { Transaction } from 'kysely';
import type { Caller } from '../auth/caller.js';
import type { Capability } from '../auth/policy.js';
import type { Database, Row } from '../store/database.js';

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
}

export interface EnumAttribute {
  kind: 'enum';
  values: readonly string[];
  required: boolean;
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

export interface WriteContext {
  trx: Transaction<Database>;
  caller: Caller;
  now: string;
}

export interface ResourceDeclaration {
  /** JSON:API type, also the path segment of the resource. */
  type: string;
  table: string;
  /** The resource this one lives under in paths, through one of its to-one relationships. */
  parent?: { type: string; relationship: string };
  attributes: Record<string, Attribute>;
  relationships: Record<string, Relationship>;
  /** A boolean attribute that, once true, hides the record and everything under it. */
  softDelete?: string;
  write: WritePolicy;
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
 * Relationship names that Terrakube clients send or include but Stratum does not model yet: in a
 * body they are accepted as null, in `include` they include nothing.
 */
export const unmodeledRelationships = new Set([
  'job',
  'history',
  'schedule',
  'agent',
  'webhook',
  'project',
  'ssh',
  'module',
  'provider',
  'workspaceTag',
  'notificationConfiguration',
  'access',
  'globalvar',
  'tag',
]);

// Attribute builders keep declarations short and their defaults in one place.

export function text(options: { required?: boolean; max: number; maxBytes?: number; default?: string | null }): TextAttribute {
  const required = options.required ?? false;
  return {
    kind: 'text',
    required,
    nullable: !required,
    default: options.default ?? null,
    maxLength: options.max,
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    readOnly: false,
  };
}

export function oneOf(values: readonly string[], fallback: string): EnumAttribute {
  return { kind: 'enum', values, required: false, default: fallback, readOnly: false };
}

export function flag(fallback: boolean): BooleanAttribute {
  return { kind: 'boolean', default: fallback, readOnly: false };
}

export function integer(fallback: number, min: number, max: number): IntegerAttribute {
  return { kind: 'integer', default: fallback, min, max, readOnly: false };
}

export function toOne(type: string, column: string): ToOne {
  return { kind: 'toOne', type, column };
}

export function toMany(type: string, column: string): ToMany {
  return { kind: 'toMany', type, column };
}

/** The column of an attribute: its name in snake case. */
export function columnOf(attribute: string): string {
  return attribute.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Completes a declaration with the audit attributes every record carries. */
export function defineResource(declaration: ResourceDeclaration): ResourceDeclaration {
  return { ...declaration, attributes: { ...declaration.attributes, ...auditAttributes } };
}

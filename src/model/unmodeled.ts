import type { ResourceDeclaration, Row, SecretReader } from './declaration.js';

/** A field of a record Stratum does not model yet: a scalar, or a link to records of a declared type. */
export type UnmodeledField = 'string' | 'boolean' | 'integer' | { linksTo: string };

/**
 * What clients read of records Stratum does not model yet, reached through a relationship name
 * clients use (`ClientConventions.unmodeledRelationships`): the declared types whose records carry
 * that relationship, and the fields clients ask of its records besides `id`. A transport that must
 * know the shape of what it serves (GraphQL validates every query against a schema) serves these
 * relationships as empty lists, so a client's query for them is valid and reads nothing.
 */
export interface UnmodeledRecord {
  on: readonly string[];
  fields: Readonly<Record<string, UnmodeledField>>;
}

/**
 * The types of the records the Terraform registry protocols read: the namespace (an organization),
 * a module and its versions, a provider, its versions and their builds.
 */
export interface RegistryRecords {
  namespace: string;
  module: string;
  moduleVersion: string;
  provider: string;
  providerVersion: string;
  implementation: string;
  /**
   * The attributes the protocols look records up by: a module's provider, a module version's and a
   * provider version's number; and the module's count of downloads, which the protocol keeps.
   */
  lookup: { moduleProvider: string; moduleVersion: string; providerVersion: string; moduleDownloads: string };
  /** A module version's files as a zip, read with the credentials the module links (the web UI's Inputs and Outputs, and Terraform). */
  archive: (module: Row, version: Row, secrets: SecretReader) => Promise<Buffer>;
}

/**
 * The types the Terraform http state backend works with: the workspace whose state it serves, and
 * the record every written state becomes (Terrakube's `history`).
 */
export interface StateRecords {
  workspace: string;
  history: string;
  /** The jobs whose credentials write state: a version a job wrote names who started the job. */
  job: string;
  /** The capability that lets a caller read, write, lock and roll back a workspace's state. */
  capability: string;
}

/**
 * The audit trail as the console and the retention of changes read it: the resource of every
 * change of the service (its table, and its attributes for filters), and the attribute of their time.
 */
export interface AuditRecords {
  trail: ResourceDeclaration;
  time: string;
  /** The attributes `stratum audit` filters on. */
  organization: string;
  recordType: string;
  actorSubject: string;
}

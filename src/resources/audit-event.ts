import { defineResource, readOnly, readOperations, text, toOne, type Attribute, type AuditRecords } from '../model/index.js';

const required = (max: number) => readOnly(text({ required: true, max }));
const optional = (max: number) => readOnly(text({ max }));

/**
 * One change of one record, as the unit of work wrote it in the change's own transaction (the rows
 * of `record_change`): HCP Terraform's audit trail event, flattened into attributes. Its `timestamp`
 * is `at`; its `auth` the actor (`actorKind`: user, team, personal, job, console, executor,
 * schedule, recovery or service; `actorSubject`, and the token's kind and id, or the job it ran as);
 * its `request` the `requestId`, `transport` and `clientAddress`; its `resource` the `recordType`,
 * `recordId` and `action` (create, update, delete, issue or revoke), with `attributes`, the JSON of
 * what changed, `{name: {before, after}}`, a secret only as `{name: {sensitive: true}}`.
 */
const changeAttributes: Record<string, Attribute> = {
  at: { kind: 'timestamp', readOnly: true, nullable: false },
  actorKind: required(16),
  actorSubject: required(512),
  actorTokenKind: optional(16),
  actorTokenId: optional(64),
  actorJobId: optional(64),
  recordType: required(64),
  recordId: required(128),
  action: required(16),
  transport: required(16),
  requestId: optional(128),
  clientAddress: optional(64),
  // Before and after of every changed value: several of a record's largest texts at worst.
  attributes: readOnly(text({ required: true, max: 4 * 1024 * 1024, maxBytes: 4 * 1024 * 1024 })),
};

/**
 * The audit trail of an organization: read by its administrators and by the members of its teams
 * with `readAuditTrail`, newest first, never written through the API. A change outlives the record
 * it describes, and the organization too (then only the instance-wide view reads it).
 */
export const auditEvent = defineResource({
  type: 'audit_event',
  table: 'record_change',
  parent: 'organization',
  operations: readOperations,
  readFlag: 'readAuditTrail',
  stamped: false,
  newestFirst: true,
  attributes: changeAttributes,
  relationships: {
    organization: toOne('organization', 'organization_id', { onDelete: 'keep' }),
  },
});

/**
 * The same changes for the whole service, every organization's and those of no organization
 * (actions, federated credentials, tokens of no organization): administrators alone read it.
 */
export const auditTrail = defineResource({
  type: 'audit_trail',
  table: 'record_change',
  global: true,
  operations: readOperations,
  stamped: false,
  newestFirst: true,
  attributes: { ...changeAttributes, organizationId: optional(64) },
  relationships: {},
});

/** What the console's `stratum audit` and the retention of changes read. */
export const auditRecords: AuditRecords = {
  trail: auditTrail,
  time: 'at',
  organization: 'organizationId',
  recordType: 'recordType',
  actorSubject: 'actorSubject',
};

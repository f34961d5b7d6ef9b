import type { Attribute } from './attributes.js';

/** Read-only attributes every record carries; a client may send them back, and they are ignored. */
export const auditAttributes: Record<string, Attribute> = {
  createdBy: { kind: 'text', required: false, nullable: false, default: null, maxLength: 512, readOnly: true },
  createdDate: { kind: 'timestamp', readOnly: true, nullable: false },
  updatedBy: { kind: 'text', required: false, nullable: false, default: null, maxLength: 512, readOnly: true },
  updatedDate: { kind: 'timestamp', readOnly: true, nullable: false },
};

/** Who last changed a record, and when. */
export interface UpdateAudit {
  updated_by: string;
  updated_date: string;
}

/** Who created a record and when, and who last changed it and when. */
export interface CreateAudit extends UpdateAudit {
  created_by: string;
  created_date: string;
}

/** The audit columns a write sets: all four on create, the `updated_` pair on a change. */
export function auditColumns(who: string, now: string, write: 'create'): CreateAudit;
export function auditColumns(who: string, now: string, write: 'update'): UpdateAudit;
export function auditColumns(who: string, now: string, write: 'create' | 'update'): CreateAudit | UpdateAudit;
export function auditColumns(who: string, now: string, write: 'create' | 'update'): CreateAudit | UpdateAudit {
  const updated = { updated_by: who, updated_date: now };
  return write === 'create' ? { created_by: who, created_date: now, ...updated } : updated;
}

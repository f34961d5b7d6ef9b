import type { Attribute } from './attributes.js';

/** Read-only attributes every record carries; a client may send them back, and they are ignored. */
export const auditAttributes: Record<string, Attribute> = {
  createdBy: { kind: 'text', required: false, nullable: false, default: null, maxLength: 512, readOnly: true },
  createdDate: { kind: 'timestamp', readOnly: true, nullable: false },
  updatedBy: { kind: 'text', required: false, nullable: false, default: null, maxLength: 512, readOnly: true },
  updatedDate: { kind: 'timestamp', readOnly: true, nullable: false },
};

/** The audit columns a write sets: all four on create, the `updated_` pair on a change. */
export function auditColumns(who: string, now: string, write: 'create' | 'update'): Record<string, string> {
  const updated = { updated_by: who, updated_date: now };
  return write === 'create' ? { created_by: who, created_date: now, ...updated } : updated;
}

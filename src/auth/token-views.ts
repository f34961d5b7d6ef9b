import type { Row } from '../model/index.js';
import type { TrackedKind } from './tokens.js';

/** A token as its creators list it: everything but the token string, which is shown once, at creation. */
export interface TokenView {
  id: string;
  description: string;
  group?: string;
  days: number;
  hours: number;
  minutes: number;
  createdBy: string;
  createdDate: string;
  expiresAt: string | null;
  deleted: false;
}

/** A token as administrators list it: whose it is, where it came from, and whether it is still used. */
export interface TokenRecord {
  id: string;
  kind: TrackedKind;
  description: string;
  /** The team a team token speaks for; null for a personal token. */
  group: string | null;
  /** The subject that created it. */
  owner: string;
  /** The API token it was created with; null when it was created with another kind of token. */
  parentId: string | null;
  createdBy: string;
  createdDate: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function viewOf(row: Row): TokenView {
  return {
    id: String(row.id),
    description: String(row.description),
    ...(typeof row.group_name === 'string' ? { group: row.group_name } : {}),
    days: Number(row.days),
    hours: Number(row.hours),
    minutes: Number(row.minutes),
    createdBy: String(row.created_by),
    createdDate: String(row.created_date),
    expiresAt: text(row.expires_at),
    deleted: false,
  };
}

export function recordOf(row: Row): TokenRecord {
  return {
    id: String(row.id),
    // The column's check constraint allows only the tracked kinds.
    kind: row.kind as TrackedKind,
    description: String(row.description),
    group: text(row.group_name),
    owner: String(row.owner),
    parentId: text(row.parent_id),
    createdBy: String(row.created_by),
    createdDate: String(row.created_date),
    expiresAt: text(row.expires_at),
    lastUsedAt: text(row.last_used_at),
    revokedAt: text(row.revoked_at),
  };
}

import crypto from 'node:crypto';
import { ApiError } from '../errors.js';
import { publicAttributes, type ResourceDeclaration, type Row } from '../model/index.js';
import type { IncludeResult } from './include.js';

/**
 * A strong validator of a record's public representation (its attributes as readers see them and
 * its to-one links), for ETag, If-Match and If-None-Match: it changes whenever what a reader sees does.
 */
export function entityTag(resource: ResourceDeclaration, row: Row): string {
  const links: Record<string, unknown> = {};
  for (const [name, relationship] of Object.entries(resource.relationships)) {
    if (relationship.kind === 'toOne') links[name] = row[relationship.column] ?? null;
  }
  const representation = JSON.stringify([resource.type, row.id, publicAttributes(resource, row), links]);
  return `"${sha256(representation).slice(0, 27)}"`;
}

/**
 * The validator of a record read with `include`: the document holds other records too (and the
 * linkage of the to-many relationships it includes), so its tag changes when any of them does.
 * Without this, a browser revalidating a workspace page (If-None-Match) would be told 304 and keep
 * showing a schedule list from before one was added.
 */
export function documentTag(resource: ResourceDeclaration, row: Row, included: IncludeResult): string {
  const records = [...included.included.values()].map((record) => entityTag(record.resource, record.row)).sort();
  const linkage = [...included.toMany].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `"${sha256(JSON.stringify([entityTag(resource, row), records, linkage])).slice(0, 27)}"`;
}

/**
 * One-shot hashing (Node 20.12 and later) makes no Hash object, which was most of what a tag cost,
 * and a tag is computed on every read of a record.
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- absent before Node 20.12, which package.json still admits
const sha256: (text: string) => string = crypto.hash
  ? (text) => crypto.hash('sha256', text, 'base64url')
  : (text) => crypto.createHash('sha256').update(text).digest('base64url');

/** Whether an If-Match or If-None-Match value names the current entity tag. */
export function tagMatches(header: string, current: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === current);
}

/** A write that only applies to the version of the record the client read (If-Match). */
export interface Precondition {
  ifMatch: string;
}

export function checkPrecondition(resource: ResourceDeclaration, row: Row, precondition: Precondition | undefined): void {
  if (precondition === undefined || tagMatches(precondition.ifMatch, entityTag(resource, row))) return;
  throw new ApiError(412, {
    code: 'precondition_failed',
    detail: 'The record has changed since it was read (If-Match does not match its ETag).',
  });
}

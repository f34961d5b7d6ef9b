import crypto from 'node:crypto';
import { ApiError } from '../errors.js';
import { publicAttributes, type ResourceDeclaration, type Row } from '../model/index.js';

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

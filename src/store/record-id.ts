import { randomBytes } from 'node:crypto';

let lastMillisecond = 0;
let sequence = 0;

/**
 * A new record id: a UUID version 7, whose leading 48 bits are the creation time in milliseconds and
 * the next 12 a counter within that millisecond. Ids therefore sort in creation order, so records
 * created in the same millisecond still list in the order they were made, and new rows append to
 * the end of the primary key index instead of landing at random places in it.
 */
export function newRecordId(): string {
  let now = Date.now();
  if (now <= lastMillisecond) {
    sequence++;
    // 4096 ids in one millisecond: borrow the next millisecond rather than repeat an order.
    if (sequence > 0xfff) {
      lastMillisecond++;
      sequence = 0;
    }
    now = lastMillisecond;
  } else {
    lastMillisecond = now;
    sequence = 0;
  }
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Ids are lower-case UUIDs; anything else names no record, and need not be looked up. */
export function isUuid(id: string): boolean {
  return uuidPattern.test(id);
}

/** The largest id a sequence hands out: one every number type on both stores, and JavaScript, holds exactly. */
export const maxSequenceId = Number.MAX_SAFE_INTEGER;

/** A sequence id as paths name it: a positive whole number in decimal, without sign or leading zeros. */
export function isSequenceId(id: string): boolean {
  return /^[1-9][0-9]{0,15}$/.test(id) && Number(id) <= maxSequenceId;
}

/** Any id the server assigns: what a path may name above a record. */
export function isServerId(id: string): boolean {
  return isUuid(id) || isSequenceId(id);
}

/**
 * The smallest id a record created at `time` or later can have: ids of records created before it
 * sort below it, as the time leads every id.
 */
export function firstIdAt(time: Date): string {
  const hex = Math.max(0, time.getTime()).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

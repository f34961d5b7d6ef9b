import { Readable } from 'node:stream';

/** Pieces of about this many characters: a few socket writes' worth, so a piece never holds much of a large answer. */
const pieceLength = 64 * 1024;

/**
 * The body of an answer whose size has no small bound (a GraphQL answer): its JSON text, the very
 * text `JSON.stringify` gives, as one string when it fits in one piece, and otherwise as a stream
 * that writes it a piece at a time as the client reads it. So a large answer is never held twice
 * (its values, and its text), and its text is never one string, which past V8's longest string
 * (about 512 MiB) would fail.
 */
export function jsonBody(value: unknown): string | Readable {
  const pieces = jsonPieces(value, pieceLength);
  const first = pieces.next();
  if (first.done === true) return '';
  const second = pieces.next();
  if (second.done === true) return first.value;
  return Readable.from(resumed([first.value, second.value], pieces), { objectMode: false });
}

function* resumed(taken: readonly string[], rest: Generator<string, void, undefined>): Generator<string, void, undefined> {
  yield* taken;
  yield* rest;
}

/** An array or object being written: its members, and how far the writing has come. */
interface Frame {
  container: object;
  /** The object's keys, in JSON.stringify's order; undefined for an array. */
  keys: readonly string[] | undefined;
  length: number;
  next: number;
  /** Whether a member has been written, so the next one needs a comma. */
  wrote: boolean;
}

/**
 * The JSON text of a value in pieces of at least `length` characters (the last one shorter), the
 * same text as `JSON.stringify(value)`: `toJSON` is called, object members without a JSON value are
 * left out and array members without one are `null`, and a cycle is a TypeError. Written without
 * recursion, so nesting costs no stack; an array or object of scalars is written by JSON.stringify
 * at once, which is most of an answer's records.
 */
export function* jsonPieces(value: unknown, length: number): Generator<string, void, undefined> {
  const frames: Frame[] = [];
  /** The containers of the frames, for cycles. */
  const open = new Set<object>();
  let text = '';

  /** Writes a value, toJSON applied, that has JSON text; an array or object of more than scalars is opened to walk. */
  const write = (member: unknown) => {
    if (member === null || typeof member !== 'object') {
      text += JSON.stringify(member);
      return;
    }
    if (open.has(member)) throw new TypeError('Converting circular structure to JSON');
    const keys = Array.isArray(member) ? undefined : Object.keys(member);
    if (holdsScalarsOnly(member, keys)) {
      text += JSON.stringify(member);
      return;
    }
    text += keys === undefined ? '[' : '{';
    open.add(member);
    frames.push({ container: member, keys, length: keys?.length ?? (member as readonly unknown[]).length, next: 0, wrote: false });
  };

  const root = withToJSON(value, '');
  if (!hasJsonText(root)) return;
  write(root);
  for (let frame = frames.at(-1); frame !== undefined; frame = frames.at(-1)) {
    if (text.length >= length) {
      yield text;
      text = '';
    }
    if (frame.next === frame.length) {
      text += frame.keys === undefined ? ']' : '}';
      open.delete(frame.container);
      frames.pop();
      continue;
    }
    const index = frame.next++;
    if (frame.keys === undefined) {
      if (frame.wrote) text += ',';
      frame.wrote = true;
      const member = withToJSON((frame.container as readonly unknown[])[index], String(index));
      if (hasJsonText(member)) write(member);
      else text += 'null';
      continue;
    }
    const key = frame.keys[index] ?? '';
    const member = withToJSON((frame.container as Record<string, unknown>)[key], key);
    if (!hasJsonText(member)) continue;
    text += `${frame.wrote ? ',' : ''}${JSON.stringify(key)}:`;
    frame.wrote = true;
    write(member);
  }
  if (text !== '') yield text;
}

/** Whether every member of an array or object is one JSON.stringify writes by itself (no array or object, which may define toJSON). */
function holdsScalarsOnly(container: object, keys: readonly string[] | undefined): boolean {
  if (keys === undefined) return (container as readonly unknown[]).every(isScalar);
  for (const key of keys) if (!isScalar((container as Record<string, unknown>)[key])) return false;
  return true;
}

function isScalar(member: unknown): boolean {
  return member === null || typeof member !== 'object';
}

function hasJsonText(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

function withToJSON(value: unknown, key: string): unknown {
  if (value === null || (typeof value !== 'object' && typeof value !== 'bigint')) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  return typeof toJSON === 'function' ? (toJSON as (key: string) => unknown).call(value, key) : value;
}

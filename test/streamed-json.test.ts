import assert from 'node:assert/strict';
import { constants } from 'node:buffer';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, it } from 'node:test';
import { jsonBody, jsonPieces } from '../src/http/plugins/streamed-json.ts';

/** A record as graphql-js builds it: an object without a prototype. */
const record = (fields: Record<string, unknown>) => Object.assign(Object.create(null) as object, fields);

const values: [string, unknown][] = [
  [
    'a GraphQL answer',
    { data: { workspace: { edges: [{ node: record({ id: 'x', a1: 'x', locked: false, n: 3 }) }, { node: record({}) }] } } },
  ],
  [
    'errors with paths and locations',
    { errors: [{ message: 'm', locations: [{ line: 1, column: 2 }], path: ['a', 0, 'b'], extensions: { code: 'c' } }] },
  ],
  ['text to escape', { s: 'quote " backslash \\ newline \n tab \t nul \u0000 bell \u0007 lone \ud800 emoji 😀 line \u2028' }],
  ['numbers', [0, -0, 1.5, -1e300, NaN, Infinity, -Infinity, 2 ** 53]],
  ['members without JSON', { u: undefined, f: () => 1, s: Symbol('s'), kept: 1, nested: [undefined, () => 1, Symbol('t')] }],
  [
    'toJSON, with the key it is called with',
    { date: new Date(0), custom: { toJSON: (key: string) => ({ key }) }, list: [{ toJSON: (key: string) => key }] },
  ],
  ['sparse and empty', { sparse: [1, , 3], empty: [], object: {}, nested: [[], [{}], [[[]]]] }], // eslint-disable-line no-sparse-arrays -- a hole is written as null
  ['integer-like keys first, as JSON.stringify orders them', { b: 1, 2: 'two', a: 2, 1: 'one' }],
  ['scalars at the root', 'text'],
  ['null at the root', null],
];

describe('JSON text a piece at a time', () => {
  it('is the very text JSON.stringify gives, whatever the length of the pieces', () => {
    for (const [what, value] of values) {
      for (const length of [1, 7, 64 * 1024]) {
        assert.equal([...jsonPieces(value, length)].join(''), JSON.stringify(value), `${what}, pieces of ${length}`);
      }
    }
  });

  it('has no text for what JSON.stringify has none, and refuses a cycle as it does', () => {
    assert.deepEqual([...jsonPieces(undefined, 10)], []);
    const cycle: Record<string, unknown> = { a: [] };
    (cycle.a as unknown[]).push({ back: cycle });
    assert.throws(() => [...jsonPieces(cycle, 10)], TypeError);
  });

  it('walks nesting without the stack', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep, 1];
    assert.throws(() => JSON.stringify(deep), RangeError);
    let length = 0;
    for (const piece of jsonPieces(deep, 64 * 1024)) length += piece.length;
    assert.equal(length, 'bottom'.length + 2 + 100_000 * '[,1]'.length);
  });

  it('writes an answer longer than the longest string V8 can hold, piece by piece', () => {
    const long = 'x'.repeat(32 * 1024 * 1024);
    const answer = { data: Array.from({ length: 20 }, () => record({ description: long })) };
    let length = 0;
    let longest = 0;
    for (const piece of jsonPieces(answer, 64 * 1024)) {
      length += piece.length;
      longest = Math.max(longest, piece.length);
    }
    assert.ok(length > constants.MAX_STRING_LENGTH, `${length} characters`);
    assert.ok(longest < 33 * 1024 * 1024, 'no piece holds more than one value and its neighbours');
  });

  it('is one string when the text is short, and a stream of the same text otherwise', async () => {
    const short = { data: { a: 'b' } };
    assert.equal(jsonBody(short), JSON.stringify(short));
    const long = { data: Array.from({ length: 5000 }, (_, i) => record({ id: String(i), name: `name ${i}` })) };
    const body = jsonBody(long);
    assert.ok(body instanceof Readable);
    assert.equal(await text(body), JSON.stringify(long));
  });
});

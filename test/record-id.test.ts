import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newRecordId } from '../src/store/record-id.ts';

describe('record ids', () => {
  it('are version 7 UUIDs that sort in the order they were made, even many in one millisecond', () => {
    const ids = Array.from({ length: 20000 }, () => newRecordId());
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual([...ids].sort(), ids);
    for (const id of ids.slice(0, 100)) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const millisecond = parseInt(ids[0]?.replace(/-/g, '').slice(0, 12) ?? '', 16);
    assert.ok(Math.abs(millisecond - Date.now()) < 60000);
  });
});

/**
 * Heavy work done a few at a time (a module's zip): the rest waits in a bounded line, in order, and
 * past the line a caller is told to come back rather than left waiting.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../src/errors.ts';
import { BoundedWork } from '../src/http/bounded-work.ts';

describe('bounded work', () => {
  it('runs at most its number at once, lets the line wait in order, and answers 503 with Retry-After past it', async () => {
    const work = new BoundedWork('archives', 2, 3);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const releases: (() => void)[] = [];
    const task = (index: number) =>
      work.run(async () => {
        running++;
        most = Math.max(most, running);
        order.push(index);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        return index;
      });
    const started = [0, 1, 2, 3, 4].map(task);
    await assert.rejects(task(5), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, 503);
      return true;
    });
    // Each release lets the next in line start: five releases, one at a time, end them all.
    for (let released = 0; released < 5; released++) {
      while (releases.length === 0) await new Promise((resolve) => setImmediate(resolve));
      releases.shift()?.();
    }
    assert.deepEqual(await Promise.all(started), [0, 1, 2, 3, 4]);
    assert.equal(most, 2);
    assert.deepEqual(order, [0, 1, 2, 3, 4]);
    // A failing task frees its slot too.
    await assert.rejects(
      work.run(() => Promise.reject(new Error('no repository'))),
      /no repository/,
    );
    assert.equal(await work.run(() => Promise.resolve('after')), 'after');
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { it } from 'node:test';
import { describeEachStore, eventually, resourceDocument, serverScript } from './harness.ts';

describeEachStore('durability', (context) => {
  it('every create that got its 201 survives a kill -9 in the middle of a stream of creates', async () => {
    const acknowledged: string[] = [];
    let killed = false;
    const writer = async (worker: number) => {
      for (let i = 0; !killed; i++) {
        try {
          const response = await context.server.post(
            '/api/v1/organization',
            resourceDocument('organization', { name: `crash-${worker}-${i}`, description: 'written before the crash' }),
          );
          if (response.status === 201) acknowledged.push(response.body.data.id as string);
        } catch {
          // The connection drops when the process dies; such a write was never acknowledged.
        }
      }
    };
    const writers = [0, 1, 2, 3, 4, 5].map(writer);
    try {
      await eventually(
        '150 acknowledged creates before the kill',
        () => {
          assert.ok(acknowledged.length >= 150, `only ${acknowledged.length} creates were acknowledged`);
        },
        // Checked often, so the kill lands in the middle of the stream rather than well after the 150th create.
        { timeoutMs: 20000, intervalMs: 5 },
      );
      await context.server.kill();
    } finally {
      // The writers loop until told to stop, also when the creates never came.
      killed = true;
      await Promise.all(writers);
    }

    await context.server.spawn();
    const missing: string[] = [];
    for (const id of acknowledged) {
      const response = await context.server.get(`/api/v1/organization/${id}`);
      if (response.status !== 200) missing.push(id);
    }
    assert.deepEqual(missing, [], `${missing.length} of ${acknowledged.length} acknowledged creates were lost`);
    const list = await context.server.get('/api/v1/organization?page[totals]&filter[organization]=name==crash-*');
    assert.ok(list.body.meta.page.totalRecords >= acknowledged.length);
  });

  if (context.kind === 'sqlite') {
    it('a second process is refused the data folder a server holds, with a message naming the holder', () => {
      const second = spawnSync(process.execPath, [serverScript], {
        env: { ...process.env, ...context.server.env, PORT: '0' },
        encoding: 'utf8',
        timeout: 15000,
      });
      assert.notEqual(second.status, 0);
      assert.match(second.stderr, /in use by another Stratum process \(pid \d+\)/);
    });
  }
});

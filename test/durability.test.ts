import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { resourceDocument, serverScript, storeKinds, TestServer } from './harness.ts';

for (const kind of storeKinds) {
  describe(`durability (${kind})`, () => {
    let server: TestServer;
    before(async () => {
      server = await TestServer.start(kind);
    });
    after(async () => {
      await server.stop();
    });

    it('every create that got its 201 survives a kill -9 in the middle of a stream of creates', async () => {
      const acknowledged: string[] = [];
      let killed = false;
      const writer = async (worker: number) => {
        for (let i = 0; !killed; i++) {
          try {
            const response = await server.post(
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
      while (acknowledged.length < 150) await new Promise((resolve) => setTimeout(resolve, 5));
      await server.kill();
      killed = true;
      await Promise.all(writers);

      await server.spawn();
      const missing: string[] = [];
      for (const id of acknowledged) {
        const response = await server.get(`/api/v1/organization/${id}`);
        if (response.status !== 200) missing.push(id);
      }
      assert.deepEqual(missing, [], `${missing.length} of ${acknowledged.length} acknowledged creates were lost`);
      const list = await server.get('/api/v1/organization?page[totals]&filter[organization]=name==crash-*');
      assert.ok(list.body.meta.page.totalRecords >= acknowledged.length);
    });

    if (kind === 'sqlite') {
      it('a second process is refused the data folder a server holds, with a message naming the holder', () => {
        const second = spawnSync(process.execPath, [serverScript], {
          env: { ...process.env, ...server.env, PORT: '0' },
          encoding: 'utf8',
          timeout: 15000,
        });
        assert.notEqual(second.status, 0);
        assert.match(second.stderr, /in use by another Stratum process \(pid \d+\)/);
      });
    }
  });
}

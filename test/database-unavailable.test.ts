import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createDatabase, createOrganization, resourceDocument, storeKinds, TestServer } from './harness.ts';

/** A TCP relay to PostgreSQL that the test can cut and restore, as a database outage would. */
class Outage {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  async open(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(5432, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server?.listen(this.port, '127.0.0.1', resolve));
    const address = this.server.address();
    if (address !== null && typeof address === 'object') this.port = address.port;
  }

  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

if (storeKinds.includes('postgres')) {
  describe('database unavailable (postgres)', () => {
    let server: TestServer;
    let drop: () => Promise<void>;
    const relay = new Outage();
    before(async () => {
      const database = await createDatabase();
      drop = database.drop;
      await relay.open();
      const url = new URL(database.url);
      url.port = String(relay.port);
      server = await TestServer.start('postgres', { DATABASE_URL: url.toString() });
    });
    after(async () => {
      await server.stop();
      await relay.cut();
      await drop();
    });

    it('answers 503 with a JSON:API error while the database is down, and recovers when it is back', async () => {
      const id = await createOrganization(server);
      await relay.cut();

      const read = await server.get(`/api/v1/organization/${id}`);
      assert.equal(read.status, 503);
      assert.equal(read.body.errors[0].status, '503');
      assert.doesNotMatch(read.text, /ECONNREFUSED|127\.0\.0\.1|select /i);
      const write = await server.post('/api/v1/organization', resourceDocument('organization', { name: 'during-outage' }));
      assert.equal(write.status, 503);
      assert.equal((await server.get('/readyz', { token: null })).status, 503);
      assert.equal((await server.get('/healthz', { token: null })).status, 200);

      await relay.open();
      assert.equal((await server.get('/readyz', { token: null })).status, 200);
      assert.equal((await server.get(`/api/v1/organization/${id}`)).status, 200);
      const list = await server.get('/api/v1/organization?filter[organization]=name==during-outage');
      assert.deepEqual(list.body.data, []);
    });
  });
}

import assert from 'node:assert/strict';
import { it } from 'node:test';
import pg from 'pg';
import { assertError, createOrganization, describeEachStore } from './harness.ts';

describeEachStore('slow statements', { env: { STRATUM_STATEMENT_TIMEOUT_MS: '300' } }, (context) => {
  it('cancels a statement that runs past STRATUM_STATEMENT_TIMEOUT_MS and answers 503, then serves the next request', async (t) => {
    if (context.kind !== 'postgres') {
      t.skip('statement timeouts are PostgreSQL settings; SQLite waits for its lock with busy_timeout');
      return;
    }
    const organization = await createOrganization(context.server);
    // Another session holds the table, so the server's read waits on it, as behind a slow query.
    const holder = new pg.Client({ connectionString: context.server.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('lock table template in access exclusive mode');
      const started = Date.now();
      const waited = await context.server.get(`/api/v1/organization/${organization}/template`);
      assertError(waited, 503);
      assert.ok(Date.now() - started < 3000, `answered after ${Date.now() - started} ms`);
      await holder.query('rollback');
      assert.equal((await context.server.get(`/api/v1/organization/${organization}/template`)).status, 200);
    } finally {
      await holder.end();
    }
  });
});

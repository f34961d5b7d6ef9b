/**
 * Each caller's requests per minute, reads and writes apart, with the IETF RateLimit fields on every
 * answer and 429 with Retry-After past the limit: as a JSON:API error document, or a GraphQL one at
 * /graphql; health checks never limited; a caller with no token counted by its address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestServer } from './harness.ts';

describe('rate limits', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start('sqlite', { STRATUM_RATE_LIMIT_READS: '5', STRATUM_RATE_LIMIT_WRITES: '2' });
  });
  after(async () => {
    await server.stop();
  });

  it("counts a caller's reads and writes apart, across its tokens, and leaves other callers theirs", async () => {
    const subject = 'looping-script@example.com';
    const token = await server.token({ subject, groups: ['STRATUM_ADMIN'] });
    for (let read = 1; read <= 5; read++) {
      const answer = await server.get('/api/v1/organization', { token });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.headers.get('ratelimit-policy'), '"reads";q=5;w=60');
      assert.match(answer.headers.get('ratelimit') ?? '', new RegExp(`^"reads";r=${5 - read};t=\\d+$`));
    }
    // Another token of the same person draws on the same allowance.
    const refused = await server.get('/api/v1/organization', { token: await server.token({ subject, groups: ['STRATUM_ADMIN'] }) });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.errors[0].code, 'rate_limited');
    assert.match(refused.body.errors[0].detail, /more than 5 reads in a minute/);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.match(refused.headers.get('ratelimit') ?? '', /^"reads";r=0;t=\d+$/);
    // Writes have their own allowance: GraphQL's POST is one, and is refused in GraphQL's shape.
    const query = { query: '{ organization { edges { node { id } } } }' };
    for (let write = 1; write <= 2; write++) assert.equal((await server.post('/graphql/api/v1', query, { token })).status, 200);
    const graphql = await server.post('/graphql/api/v1', query, { token });
    assert.equal(graphql.status, 429, graphql.text);
    assert.equal(graphql.body.errors[0].extensions.code, 'RATE_LIMITED');
    assert.match(graphql.body.errors[0].message, /more than 2 writes in a minute/);
    // Another caller is not held back.
    const other = await server.get('/api/v1/organization', { token: await server.token({ groups: ['STRATUM_ADMIN'] }) });
    assert.equal(other.status, 200);
  });

  it('never limits the health checks, and counts a caller without a token by its address', async () => {
    for (let check = 0; check < 12; check++) {
      assert.equal((await server.get('/healthz', { token: null })).status, 200);
      assert.equal((await server.get('/readyz', { token: null })).status, 200);
    }
    const statuses: number[] = [];
    for (let read = 0; read < 6; read++) statuses.push((await server.get('/.well-known/terraform.json', { token: null })).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
  });
});

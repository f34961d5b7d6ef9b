import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliScript, resourceDocument, storeKinds, TestServer } from './harness.ts';

/** Runs `stratum token ...` with a server's configuration and returns the last line it printed. */
function mint(env: Record<string, string>, args: string[]): { status: number | null; token: string; stderr: string } {
  const result = spawnSync(process.execPath, [cliScript, 'token', ...args], {
    env: { ...process.env, ...env, DATABASE_URL: env.DATABASE_URL ?? '' },
    encoding: 'utf8',
    timeout: 30000,
  });
  const lines = result.stdout.trim().split('\n');
  return { status: result.status, token: lines.at(-1) ?? '', stderr: result.stderr };
}

for (const kind of storeKinds) {
  describe(`stratum token (${kind})`, () => {
    // No STRATUM_TOKEN_KEY: the server and the CLI must find the same generated key in the store.
    let server: TestServer;
    before(async () => {
      server = await TestServer.start(kind, { STRATUM_TOKEN_KEY: '' });
    });
    after(async () => {
      await server.stop();
    });

    it('mints an administrator token that a running server accepts', async () => {
      const minted = mint(server.env, ['--subject', 'ops@example.com', '--groups', 'STRATUM_ADMIN', '--ttl', '1h']);
      assert.equal(minted.status, 0, minted.stderr);
      assert.match(minted.token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
      const response = await server.post('/api/v1/organization', resourceDocument('organization', { name: `cli-${kind}` }), {
        token: minted.token,
      });
      assert.equal(response.status, 201);
      assert.equal(response.body.data.attributes.createdBy, 'ops@example.com');
      const payload = JSON.parse(Buffer.from(minted.token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
      assert.equal(payload.sub, 'ops@example.com');
      assert.deepEqual(payload.groups, ['STRATUM_ADMIN']);
      assert.equal(Number(payload.exp) - Number(payload.iat), 3600);
    });

    it('a token minted for other groups is not an administrator', async () => {
      const minted = mint(server.env, ['--subject', 'dev@example.com', '--groups', 'developers']);
      assert.equal(minted.status, 0, minted.stderr);
      const response = await server.post('/api/v1/organization', resourceDocument('organization', { name: 'cli-dev' }), {
        token: minted.token,
      });
      assert.equal(response.status, 403);
    });

    it('rejects a missing subject and a malformed ttl with a message and no token', () => {
      const noSubject = mint(server.env, ['--groups', 'STRATUM_ADMIN']);
      assert.notEqual(noSubject.status, 0);
      assert.match(noSubject.stderr, /--subject is required/);
      const badTtl = mint(server.env, ['--subject', 'a@example.com', '--ttl', 'forever']);
      assert.notEqual(badTtl.status, 0);
      assert.match(badTtl.stderr, /--ttl/);
    });

    if (kind === 'postgres') {
      it('every server process sharing the database accepts the token and sees the same data', async () => {
        const second = await TestServer.start('postgres', {
          STRATUM_TOKEN_KEY: '',
          DATABASE_URL: server.env.DATABASE_URL ?? '',
          STRATUM_ENCRYPTION_KEY: server.env.STRATUM_ENCRYPTION_KEY ?? '',
        });
        try {
          const minted = mint(server.env, ['--subject', 'ops@example.com', '--groups', 'STRATUM_ADMIN']);
          const created = await server.post('/api/v1/organization', resourceDocument('organization', { name: 'shared-org' }), {
            token: minted.token,
          });
          assert.equal(created.status, 201);
          const read = await second.get(`/api/v1/organization/${created.body.data.id as string}`, { token: minted.token });
          assert.equal(read.status, 200);
          assert.equal(read.body.data.attributes.name, 'shared-org');
        } finally {
          // Only the process stops; the database belongs to the first server.
          await second.kill();
        }
      });
    } else {
      it('works before the server ever started: the server then accepts its token', async () => {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-cli-'));
        const minted = mint({ STRATUM_DATA_DIR: dataDir, STRATUM_TOKEN_KEY: '' }, ['--subject', 'early@example.com', '--groups', 'STRATUM_ADMIN']);
        assert.equal(minted.status, 0, minted.stderr);
        assert.equal(fs.statSync(path.join(dataDir, 'token.key')).mode & 0o777, 0o600);
        const later = await TestServer.start('sqlite', { STRATUM_DATA_DIR: dataDir, STRATUM_TOKEN_KEY: '' });
        try {
          const response = await later.get('/api/v1/organization', { token: minted.token });
          assert.equal(response.status, 200);
        } finally {
          await later.stop();
        }
      });
    }
  });
}

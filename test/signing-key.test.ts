import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { TokenSigner } from '../src/auth/tokens.ts';
import { parseEncryptionKey, SecretCipher, secretPlace } from '../src/secrets/cipher.ts';
import { adminGroup, cliScript, resourceDocument, storeKinds, TestServer } from './harness.ts';

/** Runs the CLI with a server's configuration. */
function cli(server: TestServer, args: string[], extraEnv: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [cliScript, ...args], {
    env: { ...process.env, ...server.env, DATABASE_URL: server.env.DATABASE_URL ?? '', ...extraEnv },
    encoding: 'utf8',
    timeout: 30000,
  });
  return { ...result, lastLine: result.stdout.trim().split('\n').at(-1) ?? '' };
}

function pgDump(server: TestServer): string {
  const dump = spawnSync('pg_dump', ['--no-owner', server.env.DATABASE_URL ?? ''], { encoding: 'utf8', timeout: 60000 });
  assert.equal(dump.status, 0, dump.stderr);
  return dump.stdout;
}

const place = secretPlace('service_key', 'value', 'token');

/** The stored signing key row, and the key it seals under the server's current encryption key. */
async function storedKey(server: TestServer): Promise<{ sealed: string; key: string; cipher: SecretCipher }> {
  const [row] = await server.query("select value from service_key where name = 'token'");
  const sealed = String(row?.value);
  assert.match(sealed, /^s1:/, 'the signing key is stored in plain text');
  const cipher = new SecretCipher(parseEncryptionKey(server.env.STRATUM_ENCRYPTION_KEY ?? ''));
  return { sealed, key: cipher.open(sealed, place), cipher };
}

/** Creates an organization with a token; the answer's status. */
async function createWith(server: TestServer, token: string): Promise<number> {
  const response = await server.post('/api/v1/organization', resourceDocument('organization', { name: `org-${randomUUID()}` }), { token });
  return response.status;
}

const mintArgs = ['token', '--subject', 'ops@example.com', '--groups', adminGroup, '--ttl', '1h'];

// The embedded store keeps its key in a 0600 file beside the database (covered by cli.test.ts);
// only PostgreSQL keeps it in the database.
if (storeKinds.includes('postgres')) {
  describe('the token-signing key in PostgreSQL', () => {
    let server: TestServer;
    before(async () => {
      server = await TestServer.start('postgres', { STRATUM_TOKEN_KEY: '' });
    });
    after(() => server.stop());

    it('is stored sealed under the encryption key and bound to its row: no dump holds the key', async () => {
      const { sealed, key, cipher } = await storedKey(server);
      assert.ok(key.length >= 32);
      assert.ok(!sealed.includes(key));
      assert.ok(!pgDump(server).includes(key), 'the dump holds the signing key');
      assert.throws(() => cipher.open(sealed, secretPlace('service_key', 'value', 'encryption-check')));
      // It is the key the server signs with: a token signed with it is accepted.
      const { token } = await new TokenSigner(key, adminGroup).sign({ subject: 'a@example.com', groups: [adminGroup], ttlSeconds: 600 });
      assert.equal(await createWith(server, token), 201);
    });

    it('stratum token opens it with the encryption key: its token works against the server, another key is refused', async () => {
      const minted = cli(server, mintArgs);
      assert.equal(minted.status, 0, minted.stderr);
      assert.equal(await createWith(server, minted.lastLine), 201);
      const wrongKey = cli(server, mintArgs, { STRATUM_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
      assert.notEqual(wrongKey.status, 0, 'minted a token without the encryption key that seals the signing key');
      assert.match(wrongKey.stderr, /encryption key/);
      assert.doesNotMatch(wrongKey.stdout, /^[\w-]+\.[\w-]+\.[\w-]+$/m);
    });

    it('is re-sealed by rotate-encryption-key: tokens minted before and after the rotation work', async () => {
      const before = cli(server, mintArgs);
      assert.equal(before.status, 0, before.stderr);
      const { key } = await storedKey(server);
      await server.kill();
      const newKey = randomBytes(32).toString('base64');
      const rotated = cli(server, ['rotate-encryption-key'], { STRATUM_NEW_ENCRYPTION_KEY: newKey });
      assert.equal(rotated.status, 0, rotated.stderr);
      assert.match(rotated.stdout, /token-signing key/);
      server.env.STRATUM_ENCRYPTION_KEY = newKey;
      const after = await storedKey(server);
      assert.equal(after.key, key, 'the rotation changed the signing key');
      assert.equal(after.sealed.split(':')[1], after.cipher.keyId);
      await server.spawn();
      assert.equal(await createWith(server, before.lastLine), 201);
      const minted = cli(server, mintArgs);
      assert.equal(minted.status, 0, minted.stderr);
      assert.equal(await createWith(server, minted.lastLine), 201);
    });

    it('left in plain text by an older version, is sealed at the next start, and the tokens it signed still verify', async () => {
      await server.kill();
      const plain = randomBytes(32).toString('base64url');
      assert.equal(await server.execute("update service_key set value = $1 where name = 'token'", [plain]), 1);
      const { token } = await new TokenSigner(plain, adminGroup).sign({
        subject: 'old@example.com',
        groups: [adminGroup],
        ttlSeconds: 600,
      });
      await server.spawn();
      const { sealed, key } = await storedKey(server);
      assert.equal(key, plain);
      assert.ok(!sealed.includes(plain));
      assert.ok(!pgDump(server).includes(plain), 'the dump still holds the signing key');
      assert.equal(await createWith(server, token), 201);
    });
  });
}

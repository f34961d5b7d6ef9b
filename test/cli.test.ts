import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { stratum } from './cli-run.ts';
import { cliScript, createDatabase, describeEachStore, mint, resourceDocument, TestServer } from './harness.ts';

const version = (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const commands = ['serve', 'migrate', 'check', 'token', 'tokens', 'backup', 'rotate-encryption-key'];

describe('stratum usage', () => {
  it('--help prints every command on stdout and exits 0', () => {
    const result = stratum(['--help']);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stderr, '');
    for (const command of commands) assert.match(result.stdout, new RegExp(`^  ${command}\\b`, 'm'), `${command} is missing from the help`);
    assert.match(result.stdout, /Exit codes: 0 done, 1 failed/);
  });

  it('stops quietly with status 0 when the reader of its output closes the pipe early', async () => {
    // `stratum --help | head -1`: the reader goes away after the first line.
    const child = spawn(process.execPath, [cliScript, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.destroy();
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });

  it('`help CMD` and `CMD --help` print the same usage of that command on stdout and exit 0', () => {
    for (const command of commands) {
      const viaHelp = stratum(['help', command]);
      const viaOption = stratum([command, '--help']);
      assert.equal(viaHelp.status, 0, viaHelp.stderr);
      assert.equal(viaOption.status, 0, viaOption.stderr);
      assert.match(viaHelp.stdout, new RegExp(`^Usage: stratum ${command}`));
      assert.equal(viaHelp.stdout, viaOption.stdout);
    }
    assert.match(stratum(['help', 'token']).stdout, /--subject <email>[\s\S]*--ttl <duration>[\s\S]*--init/);
    assert.match(stratum(['tokens', 'revoke', '--help']).stdout, /^Usage: stratum tokens revoke \[options\] <id>/);
  });

  it('--version prints the version of package.json and the schema it migrates to', () => {
    const result = stratum(['--version']);
    assert.equal(result.status, 0);
    const latest = fs
      .readdirSync(new URL('../src/store/migrations/', import.meta.url))
      .filter((f) => /^\d{4}-/.test(f))
      .sort()
      .at(-1)
      ?.replace(/\.ts$/, '');
    assert.equal(result.stdout.trim(), `${version} (schema ${latest})`);
  });

  it('an unknown command says so, suggests the nearest one, and exits 2 with nothing on stdout', () => {
    const result = stratum(['tokn', '--subject', 'a@example.com']);
    assert.equal(result.status, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /unknown command 'tokn'/);
    assert.match(result.stderr, /Did you mean token\?/);
    assert.match(stratum(['tokens', 'lst']).stderr, /Did you mean list\?/);
    assert.match(stratum(['rotate-encryption-kye']).stderr, /Did you mean rotate-encryption-key\?/);
    // Too far from every name for a suggestion: still says where to look.
    assert.match(stratum(['frobnicate']).stderr, /unknown command 'frobnicate'\n\(add --help for the commands and options\)/);
  });

  it('an unknown option says so, suggests the nearest one, and exits 2 before anything runs', () => {
    const result = stratum(['token', '--subjct', 'a@example.com']);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /unknown option '--subjct'/);
    assert.match(result.stderr, /Did you mean --subject\?/);
    const extra = stratum(['check', 'now']);
    assert.equal(extra.status, 2);
    assert.match(extra.stderr, /too many arguments/);
    const missing = stratum(['backup']);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /missing required argument 'file'/);
  });

  it('without a command prints the usage on stderr and exits 2', () => {
    const result = stratum([]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^Usage: stratum/);
  });

  it('a missing subject or a malformed ttl is a usage error (2) with a message and no token', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-cli-'));
    const noSubject = stratum(['token', '--groups', 'STRATUM_ADMIN'], { STRATUM_DATA_DIR: dataDir });
    assert.equal(noSubject.status, 2);
    assert.match(noSubject.stderr, /--subject is required/);
    assert.equal(noSubject.stdout, '');
    const badTtl = stratum(['token', '--subject', 'a@example.com', '--ttl', 'forever'], { STRATUM_DATA_DIR: dataDir });
    assert.equal(badTtl.status, 2);
    assert.match(badTtl.stderr, /--ttl must look like 30d/);
    assert.equal(badTtl.stdout, '');
  });

  it('an invalid configuration names every bad variable and exits 1', () => {
    const result = stratum(['token', '--subject', 'a@example.com'], { PORT: 'eighty', STRATUM_LOG_LEVEL: 'loud' });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /PORT must be an integer/);
    assert.match(result.stderr, /STRATUM_LOG_LEVEL must be one of/);
  });
});

// No STRATUM_TOKEN_KEY: the server and the CLI must find the same generated key in the store.
describeEachStore('stratum token', { env: { STRATUM_TOKEN_KEY: '' } }, (context) => {
  it('mints an administrator token that a running server accepts', async () => {
    const minted = mint(context.server.env, ['--subject', 'ops@example.com', '--groups', 'STRATUM_ADMIN', '--ttl', '1h']);
    assert.equal(minted.status, 0, minted.stderr);
    assert.match(minted.token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const response = await context.server.post('/api/v1/organization', resourceDocument('organization', { name: `cli-${context.kind}` }), {
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
    const minted = mint(context.server.env, ['--subject', 'dev@example.com', '--groups', 'developers']);
    assert.equal(minted.status, 0, minted.stderr);
    const response = await context.server.post('/api/v1/organization', resourceDocument('organization', { name: 'cli-dev' }), {
      token: minted.token,
    });
    assert.equal(response.status, 403);
  });

  it("a token minted for another store is refused with the reason, and the server's log says why", async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-elsewhere-'));
    const foreign = stratum(['token', '--init', '--subject', 'ops@example.com', '--groups', 'STRATUM_ADMIN'], {
      STRATUM_DATA_DIR: path.join(elsewhere, 'data'),
    });
    assert.equal(foreign.status, 0, foreign.stderr);
    const token = foreign.stdout.trim().split('\n').at(-1) ?? '';
    // The command (a new store, every migration) held this process's event loop: a kept-alive
    // connection the server closed meanwhile is noticed before the next request, not reused.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const response = await context.server.get('/api/v1/organization', { token, headers: { 'x-request-id': `foreign-${context.kind}` } });
    assert.equal(response.status, 401);
    assert.match(response.body.errors[0].detail, /signature does not match this server's signing key/);
    assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token".*signature does not match/);
    const { eventually } = await import('./harness.ts');
    const line = await eventually('the refusal in the log', () => {
      const found = context.server.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.reqId === `foreign-${context.kind}`);
      assert.ok(found !== undefined);
      return found;
    });
    assert.equal(line.status, 401);
    assert.equal(line.code, 'unauthorized');
    assert.match(String(line.reason), /signature does not match this server's signing key/);
    for (const text of context.server.logs) assert.ok(!text.includes(token.split('.')[2] ?? token), 'the log holds the token');
  });

  if (context.kind === 'postgres') {
    it('every server process sharing the database accepts the token and sees the same data', async () => {
      const second = await TestServer.start('postgres', {
        STRATUM_TOKEN_KEY: '',
        DATABASE_URL: context.server.env.DATABASE_URL ?? '',
        STRATUM_ENCRYPTION_KEY: context.server.env.STRATUM_ENCRYPTION_KEY ?? '',
      });
      try {
        const minted = mint(context.server.env, ['--subject', 'ops@example.com', '--groups', 'STRATUM_ADMIN']);
        const created = await context.server.post('/api/v1/organization', resourceDocument('organization', { name: 'shared-org' }), {
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

    it('refuses a database no server has set up, changing nothing, unless --init', async () => {
      const database = await createDatabase();
      try {
        const env = { DATABASE_URL: database.url, STRATUM_ENCRYPTION_KEY: context.server.env.STRATUM_ENCRYPTION_KEY ?? '' };
        const refused = stratum(['token', '--subject', 'a@example.com'], env);
        assert.equal(refused.status, 1);
        assert.match(refused.stderr, /holds no Stratum store yet: start the server once, run `stratum migrate`, or pass --init/);
        assert.match(refused.stderr, /DATABASE_URL=postgres:\/\//);
        const pg = await import('pg');
        const client = new pg.default.Client({ connectionString: database.url });
        await client.connect();
        try {
          const { rows } = await client.query("select count(*)::int as n from information_schema.tables where table_schema = 'public'");
          assert.equal(rows[0].n, 0, 'the refused command created tables');
        } finally {
          await client.end();
        }
        const initialised = stratum(['token', '--init', '--subject', 'a@example.com'], env);
        assert.equal(initialised.status, 0, initialised.stderr);
      } finally {
        await database.drop();
      }
    });
  } else {
    it('refuses a data folder that does not exist, and creates none, unless --init', async () => {
      const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-cli-'));
      const dataDir = path.join(parent, 'data');
      const refused = stratum(['token', '--subject', 'early@example.com', '--groups', 'STRATUM_ADMIN'], { STRATUM_DATA_DIR: dataDir });
      assert.equal(refused.status, 1);
      assert.equal(refused.stdout, '');
      assert.match(refused.stderr, new RegExp(`there is no data folder ${dataDir}: point STRATUM_DATA_DIR at the server's data folder`));
      assert.match(refused.stderr, /pass --init to create a new store/);
      assert.ok(!fs.existsSync(dataDir), 'the refused command created the folder');
      // A folder that exists but holds no key is refused as well: a new key would sign tokens no server knows.
      fs.mkdirSync(dataDir);
      const empty = stratum(['token', '--subject', 'early@example.com'], { STRATUM_DATA_DIR: dataDir });
      assert.equal(empty.status, 1);
      assert.match(empty.stderr, /holds no token\.key/);
      assert.ok(!fs.existsSync(path.join(dataDir, 'token.key')));

      const minted = stratum(['token', '--init', '--subject', 'early@example.com', '--groups', 'STRATUM_ADMIN'], {
        STRATUM_DATA_DIR: dataDir,
      });
      assert.equal(minted.status, 0, minted.stderr);
      assert.equal(fs.statSync(path.join(dataDir, 'token.key')).mode & 0o777, 0o600);
      const later = await TestServer.start('sqlite', { STRATUM_DATA_DIR: dataDir, STRATUM_TOKEN_KEY: '' });
      try {
        const response = await later.get('/api/v1/organization', { token: minted.stdout.trim().split('\n').at(-1) ?? '' });
        assert.equal(response.status, 200);
      } finally {
        await later.stop();
      }
    });
  }
});

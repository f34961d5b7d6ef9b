import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import Sqlite from 'better-sqlite3';
import { stratumAsync } from './cli-run.ts';
import {
  assertError,
  assertRefused,
  createDatabase,
  createOrganization,
  describeEachStore,
  eventually,
  staleTokenBoundMs,
} from './harness.ts';

/** The released migrations, as the folder holds them: the commands must name every one. */
const migrations = fs
  .readdirSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'store', 'migrations'))
  .filter((file) => /^\d{4}-.+\.ts$/.test(file))
  .map((file) => file.replace(/\.ts$/, ''))
  .sort();

describeEachStore('stratum migrate, check, tokens and backup', (context) => {
  const env = () => context.server.env;

  it('migrate --check exits 0 on a migrated store and 3, listing them, while migrations are pending; migrate applies them', async () => {
    const current = await stratumAsync(['migrate', '--check'], env());
    assert.equal(current.status, 0, current.stderr);
    assert.match(current.stdout, new RegExp(`is up to date \\(${migrations.length} migrations applied\\)`));

    let fresh: Record<string, string>;
    let drop = () => Promise.resolve();
    if (context.kind === 'postgres') {
      const database = await createDatabase();
      fresh = { DATABASE_URL: database.url, STRATUM_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
      drop = database.drop;
    } else {
      fresh = { STRATUM_DATA_DIR: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-migrate-')), 'data') };
    }
    try {
      const pending = await stratumAsync(['migrate', '--check'], fresh);
      assert.equal(pending.status, 3, pending.stderr);
      if (context.kind === 'postgres')
        assert.match(pending.stderr, new RegExp(`${migrations.length} migration\\(s\\) pending: ${migrations.join(', ')}`));
      else assert.match(pending.stderr, /there is no data folder .*, so every migration is pending/);
      if (context.kind === 'sqlite') {
        const refused = await stratumAsync(['migrate'], fresh);
        assert.equal(refused.status, 1);
        assert.match(refused.stderr, /there is no data folder .*pass --init/);
        assert.ok(!fs.existsSync(fresh.STRATUM_DATA_DIR ?? ''), 'migrate created the folder without --init');
      }
      const applied = await stratumAsync(context.kind === 'sqlite' ? ['migrate', '--init'] : ['migrate'], fresh);
      assert.equal(applied.status, 0, applied.stderr);
      assert.match(applied.stdout, new RegExp(`applied ${migrations.length} migration\\(s\\) to .*: ${migrations.join(', ')}`));
      assert.equal((await stratumAsync(['migrate', '--check'], fresh)).status, 0);
      assert.match((await stratumAsync(['migrate'], fresh)).stdout, /is up to date/);
      if (context.kind === 'sqlite') {
        // --init makes the store whole: nothing for check to miss, and a token can be minted at once.
        const checked = await stratumAsync(['check'], fresh);
        assert.equal(checked.status, 0, checked.stdout + checked.stderr);
        assert.match(checked.stdout, /No problem found\.$/m);
        assert.equal((await stratumAsync(['token', '--subject', 'ops@example.com'], fresh)).status, 0);
      }
    } finally {
      await drop();
    }
  });

  if (context.kind === 'sqlite') {
    it('migrate refuses to run beside the server that holds the data folder', async () => {
      const result = await stratumAsync(['migrate'], env());
      assert.equal(result.status, 1);
      assert.match(result.stderr, /in use by another Stratum process \(pid \d+\)/);
    });
  }

  it('check, beside the running server, finds the database, the migrations and both keys in order', async () => {
    const result = await stratumAsync(['check'], env());
    assert.equal(result.status, 0, result.stdout + result.stderr);
    for (const subject of ['configuration', 'database', 'migrations', 'encryption key', 'signing key']) {
      assert.match(result.stdout, new RegExp(`^  ok {4}${subject} `, 'm'), `${subject} is not ok:\n${result.stdout}`);
    }
    assert.match(result.stdout, new RegExp(`all ${migrations.length} applied`));
    assert.match(result.stdout, /No problem found/);
  });

  it('check finds an encryption key that does not open the stored secrets, and says what to do', async () => {
    const result = await stratumAsync(['check'], { ...env(), STRATUM_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
    assert.equal(result.status, 1);
    assert.match(
      result.stdout,
      /FAIL {2}encryption key +STRATUM_ENCRYPTION_KEY \(key id \w+\) does not open the secrets the store holds \(sealed with key id \w+\)/,
    );
    assert.match(result.stdout, /fix: use the key they were sealed with/);
    assert.match(result.stderr, /check found \d problem\(s\) to fix/);
  });

  it('tokens list shows every team and personal token at the console; tokens revoke stops one on the running server', async () => {
    const organization = await createOrganization(context.server);
    assert.ok(organization);
    const created = await context.server.post(
      '/access-token/v1/teams',
      { description: 'CI pipeline', days: 1, group: `deployers-${context.kind}` },
      { headers: { 'content-type': 'application/json' } },
    );
    assert.equal(created.status, 201, created.text);
    const { id, token } = created.body as { id: string; token: string };
    assert.equal((await context.server.get('/api/v1/organization', { token })).status, 200);

    const listed = await stratumAsync(['tokens', 'list'], env());
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /^ID +KIND +GROUP\/OWNER +STATE +EXPIRES +LAST USED +DESCRIPTION$/m);
    assert.match(listed.stdout, new RegExp(`^${id} +team +deployers-${context.kind} +live .* CI pipeline$`, 'm'));
    const json = JSON.parse((await stratumAsync(['tokens', 'list', '--json'], env())).stdout) as {
      id: string;
      kind: string;
      revokedAt: string | null;
    }[];
    assert.deepEqual(
      json.filter((t) => t.id === id).map((t) => ({ kind: t.kind, revokedAt: t.revokedAt })),
      [{ kind: 'team', revokedAt: null }],
    );

    const revoked = await stratumAsync(['tokens', 'revoke', id], env());
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.match(revoked.stdout, new RegExp(`revoked 1 token\\(s\\): ${id}`));
    await eventually(
      'the server to refuse the revoked token',
      async () => assertRefused(await context.server.get('/api/v1/organization', { token }), /revoked/),
      {
        timeoutMs: staleTokenBoundMs + 1000,
      },
    );
    assert.doesNotMatch((await stratumAsync(['tokens', 'list'], env())).stdout, new RegExp(id));
    assert.match((await stratumAsync(['tokens', 'list', '--all'], env())).stdout, new RegExp(`^${id} +team +\\S+ +revoked `, 'm'));
    const [row] = await context.server.query('select revoked_at from api_token where id = $1', [id]);
    assert.ok(row?.revoked_at !== null);

    const unknown = await stratumAsync(['tokens', 'revoke', '0192f3a0-8c4e-7d10-9a6b-000000000000'], env());
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /there is no API token 0192f3a0-8c4e-7d10-9a6b-000000000000 in this store/);
  });

  it('tokens list prints control characters of a description as codes, and the token endpoints refuse them', async () => {
    const json = { headers: { 'content-type': 'application/json' } };
    const group = `operators-${context.kind}`;
    // Up one line, erase it: the row above would vanish from an administrator's terminal.
    const erasing = 'nightly\u001b[1A\u001b[2K\u009b2K done\u202e';
    assertError(await context.server.post('/access-token/v1/teams', { description: erasing, days: 1, group }, json), 400, '/description');
    assertError(
      await context.server.post('/access-token/v1/teams', { description: 'ok', days: 1, group: 'ops\u0007' }, json),
      400,
      '/group',
    );
    assertError(await context.server.post('/pat/v1', { description: 'line\nbreak', days: 1 }, json), 400, '/description');

    // A description stored before control characters were refused.
    const created = await context.server.post('/access-token/v1/teams', { description: 'nightly', days: 1, group }, json);
    assert.equal(created.status, 201, created.text);
    const { id } = created.body as { id: string };
    assert.equal(await context.server.execute('update api_token set description = $1 where id = $2', [erasing, id]), 1);

    const listed = await stratumAsync(['tokens', 'list'], env());
    assert.equal(listed.status, 0, listed.stderr);
    // Every character a terminal takes as a command, the line breaks between rows aside.
    const commands = (text: string) => text.match(/(?!\n)[\p{Cc}\u202a-\u202e]/gu) ?? [];
    assert.deepEqual(commands(listed.stdout), [], 'a control character reached the terminal');
    const row = listed.stdout.split('\n').find((line) => line.startsWith(id));
    assert.ok(row?.endsWith(String.raw`nightly\x1b[1A\x1b[2K\x9b2K done\u{202e}`), row);
    const printed = (await stratumAsync(['tokens', 'list', '--json'], env())).stdout;
    assert.deepEqual(commands(printed), []);
    const records = JSON.parse(printed) as { id: string; description: string }[];
    assert.equal(records.find((r) => r.id === id)?.description, erasing, 'the JSON reads back as stored');
  });

  if (context.kind === 'sqlite') {
    it('backup copies the embedded store while the server runs, into a file that opens on its own', async () => {
      const organization = await createOrganization(context.server, { name: 'backed-up' });
      const target = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-backup-')), 'stratum-backup.db');
      // Writes go on while the copy is taken.
      const writing = Promise.all(Array.from({ length: 20 }, () => createOrganization(context.server)));
      const result = await stratumAsync(['backup', target], env());
      await writing;
      assert.equal(result.status, 0, result.stderr);
      assert.match(
        result.stdout,
        new RegExp(`backed up .*stratum\\.db to ${target} \\(\\d+ KiB, ${migrations.length} migrations, \\d+ API tokens\\)`),
      );
      assert.match(result.stdout, /keep .*encryption\.key and .*STRATUM_TOKEN_KEY safe/);
      // It holds the sealed secrets and the token records: its owner's alone.
      assert.equal(fs.statSync(target).mode & 0o777, 0o600);
      const copy = new Sqlite(target, { readonly: true });
      try {
        assert.equal(copy.pragma('quick_check', { simple: true }), 'ok');
        assert.equal(copy.pragma('journal_mode', { simple: true }), 'delete');
        assert.deepEqual(copy.prepare('select name from organization where id = ?').get(organization), { name: 'backed-up' });
      } finally {
        copy.close();
      }
      assert.deepEqual(
        fs.readdirSync(path.dirname(target)).filter((f) => f !== 'stratum-backup.db'),
        [],
        'the backup left files beside it',
      );
      const again = await stratumAsync(['backup', target], env());
      assert.equal(again.status, 1);
      assert.match(again.stderr, /exists already: name a new file/);
    });
  } else {
    it('backup on PostgreSQL says to use pg_dump, and how, without the password', async () => {
      const url = new URL(env().DATABASE_URL ?? '');
      url.password = 'pw-not-shown';
      const result = await stratumAsync(['backup', path.join(os.tmpdir(), 'never-written.db')], { ...env(), DATABASE_URL: url.toString() });
      assert.equal(result.status, 1);
      assert.match(result.stderr, /this configuration uses PostgreSQL \(DATABASE_URL=postgres:\/\/[^:]+:\*\*\*@/);
      assert.match(result.stderr, /pg_dump --format=custom --file=stratum\.dump "\$DATABASE_URL"/);
      assert.match(result.stderr, /pg_restore --no-owner/);
      assert.doesNotMatch(result.stderr, /pw-not-shown/);
      assert.ok(!fs.existsSync(path.join(os.tmpdir(), 'never-written.db')));
    });
  }
});

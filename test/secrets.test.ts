import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, it } from 'node:test';
import { parseEncryptionKey, SecretCipher, secretPlace } from '../src/secrets/cipher.ts';
import {
  cliScript,
  createOrganization,
  createCollection,
  createRecord,
  createWorkspace,
  describeEachStore,
  eventually,
  resourceDocument,
  serverScript,
  TestServer,
} from './harness.ts';

/** Runs the CLI with a server's configuration. */
function cli(server: TestServer, args: string[], extraEnv: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cliScript, ...args], {
    env: { ...process.env, ...server.env, DATABASE_URL: server.env.DATABASE_URL ?? '', ...extraEnv },
    encoding: 'utf8',
    timeout: 30000,
  });
}

/** Starts the built server with a configuration it must refuse, and returns how it ended. */
function startRefused(server: TestServer, overrides: Record<string, string>) {
  return spawnSync(process.execPath, [serverScript], {
    env: { ...process.env, ...server.env, DATABASE_URL: server.env.DATABASE_URL ?? '', ...overrides },
    encoding: 'utf8',
    timeout: 15000,
  });
}

/** The key the server seals with: from the environment, or the embedded store's key file. */
function currentKey(server: TestServer): Buffer {
  const fromEnv = server.env.STRATUM_ENCRYPTION_KEY;
  if (fromEnv !== undefined && fromEnv !== '') return parseEncryptionKey(fromEnv);
  return parseEncryptionKey(fs.readFileSync(path.join(server.env.STRATUM_DATA_DIR ?? '', 'encryption.key'), 'utf8'));
}

/** Every byte the store keeps: the embedded database files, or a pg_dump of the database. */
function storeContents(server: TestServer): string {
  if (server.kind === 'sqlite') {
    const folder = server.env.STRATUM_DATA_DIR ?? '';
    return fs
      .readdirSync(folder)
      .filter((name) => name.startsWith('stratum.db'))
      .map((name) => fs.readFileSync(path.join(folder, name)).toString('latin1'))
      .join('\n');
  }
  const dump = spawnSync('pg_dump', ['--no-owner', server.env.DATABASE_URL ?? ''], { encoding: 'utf8', timeout: 60000 });
  assert.equal(dump.status, 0, dump.stderr);
  return dump.stdout;
}

describeEachStore('secrets at rest and in logs', { env: { STRATUM_LOG_LEVEL: 'trace' } }, (context) => {
  // Markers that would show up verbatim wherever a secret leaked.
  const secrets = {
    variable: `variable-secret-${randomUUID()}`,
    item: `item-secret-${randomUUID()}`,
    clientSecret: `client-secret-${randomUUID()}`,
    privateKey: `private-key-${randomUUID()}`,
    accessToken: `access-token-${randomUUID()}`,
    globalvar: `globalvar-secret-${randomUUID()}`,
    sshKey: `ssh-private-key-${randomUUID()}`,
    state: `state-output-${randomUUID()}`,
  };
  /** A Terraform state holding a secret output, as the state backend stores it (sealed whole). */
  const stateText = () =>
    JSON.stringify({
      version: 4,
      serial: 1,
      lineage: 'l',
      outputs: { password: { value: secrets.state, type: 'string', sensitive: true } },
      resources: [],
    });
  const statePath = () => `/tfstate/v1/organization/${ids.organization}/workspace/${ids.workspace}/state`;
  const variableKey = `TF_VAR_marker_${randomBytes(4).toString('hex')}`;
  let ids: {
    organization: string;
    workspace: string;
    variable: string;
    collection: string;
    item: string;
    vcs: string;
    globalvar: string;
    ssh: string;
  };

  before(async () => {
    const organization = await createOrganization(context.server);
    const workspace = await createWorkspace(context.server, organization);
    const variable = await createRecord(context.server, `/api/v1/workspace/${workspace}/variable`, 'variable', {
      key: variableKey,
      value: secrets.variable,
      category: 'ENV',
      sensitive: true,
    });
    const collection = await createCollection(context.server, organization);
    const item = await createRecord(context.server, `/api/v1/organization/${organization}/collection/${collection}/item`, 'item', {
      key: 'token',
      value: secrets.item,
      category: 'TERRAFORM',
      sensitive: true,
    });
    const vcs = await createRecord(context.server, `/api/v1/organization/${organization}/vcs`, 'vcs', {
      name: 'github',
      vcsType: 'GITHUB',
      clientSecret: secrets.clientSecret,
      privateKey: secrets.privateKey,
      accessToken: secrets.accessToken,
    });
    const globalvar = await createRecord(context.server, `/api/v1/organization/${organization}/globalvar`, 'globalvar', {
      key: 'TF_TOKEN_app_example_com',
      value: secrets.globalvar,
      category: 'ENV',
      sensitive: true,
    });
    const ssh = await createRecord(context.server, `/api/v1/organization/${organization}/ssh`, 'ssh', {
      name: 'modules',
      sshType: 'ed25519',
      privateKey: secrets.sshKey,
    });
    ids = { organization, workspace, variable, collection, item, vcs, globalvar, ssh };
    const stored = await context.server.request('POST', statePath(), { raw: stateText(), headers: { 'content-type': 'application/json' } });
    assert.equal(stored.status, 200, stored.text);
    // Requests that fail with a secret in them: a malformed body and a rejected value.
    await context.server.request('POST', `/api/v1/workspace/${workspace}/variable`, {
      raw: `{"data": {"attributes": {"value": "${secrets.variable}"`,
    });
    const rejected = await context.server.post(
      `/api/v1/workspace/${workspace}/variable`,
      resourceDocument('variable', { key: 'other', value: secrets.variable, category: 'NOPE', sensitive: true }),
    );
    assert.equal(rejected.status, 422);
    assert.ok(!rejected.text.includes(secrets.variable), 'an error echoed a secret');
    const patched = await context.server.patch(
      `/api/v1/organization/${organization}/vcs/${vcs}`,
      resourceDocument('vcs', { clientSecret: secrets.clientSecret, vcsType: 'NOPE' }),
    );
    assert.equal(patched.status, 422);
    assert.ok(!patched.text.includes(secrets.clientSecret), 'an error echoed a secret');
  });

  it('stores no secret in plain text: the database files or dump hold none of them', () => {
    const contents = storeContents(context.server);
    // The dump is real: the variable's key, which is not secret, is in it.
    assert.ok(contents.includes(variableKey), 'the store dump does not hold the variable key');
    for (const [name, secret] of Object.entries(secrets)) assert.ok(!contents.includes(secret), `${name} found in the store`);
  });

  it('keeps every secret sealed under the key, so the job engine can still open it', async () => {
    const cipher = new SecretCipher(currentKey(context.server));
    const expectations: [string, string, string, string][] = [
      ['variable', 'value', ids.variable, secrets.variable],
      ['item', 'value', ids.item, secrets.item],
      ['vcs', 'client_secret', ids.vcs, secrets.clientSecret],
      ['vcs', 'private_key', ids.vcs, secrets.privateKey],
      ['vcs', 'access_token', ids.vcs, secrets.accessToken],
      ['globalvar', 'value', ids.globalvar, secrets.globalvar],
      ['ssh', 'private_key', ids.ssh, secrets.sshKey],
    ];
    for (const [table, column, id, plain] of expectations) {
      const [row] = await context.server.query(`select "${column}" as v from "${table}" where id = $1`, [id]);
      const sealed = String(row?.v);
      assert.match(sealed, /^s1:/);
      assert.equal(cipher.open(sealed, secretPlace(table, column, id)), plain);
      // Bound to its place: the same ciphertext does not open as another record's value.
      assert.throws(() => cipher.open(sealed, secretPlace(table, column, randomUUID())));
    }
  });

  it('never writes a secret to the log, even at trace level', async () => {
    // The log is written asynchronously: until it holds the failed requests, whose bodies carried
    // secrets, finding no secret in it proves nothing.
    const failed = [
      { method: 'POST', path: `/api/v1/workspace/${ids.workspace}/variable`, status: 400 },
      { method: 'POST', path: `/api/v1/workspace/${ids.workspace}/variable`, status: 422 },
      { method: 'PATCH', path: `/api/v1/organization/${ids.organization}/vcs/${ids.vcs}`, status: 422 },
    ];
    await eventually('the failed requests in the log', () => {
      const lines = context.server.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
      for (const request of failed) {
        assert.ok(
          lines.some((line) => line.method === request.method && line.path === request.path && line.status === request.status),
          `no log line ${JSON.stringify(request)}`,
        );
      }
    });
    const log = context.server.logs.join('\n');
    assert.ok(log.includes('"status":422'), 'the log holds the failed requests');
    for (const [name, secret] of Object.entries(secrets)) assert.ok(!log.includes(secret), `${name} found in the log`);
  });

  it('answers every read of a secret with null', async () => {
    const reads = [
      `/api/v1/workspace/${ids.workspace}/variable/${ids.variable}`,
      `/api/v1/workspace/${ids.workspace}/variable`,
      `/api/v1/organization/${ids.organization}/workspace/${ids.workspace}?include=variable,vcs`,
      `/api/v1/organization/${ids.organization}/collection/${ids.collection}?include=item`,
      `/api/v1/organization/${ids.organization}/collection/${ids.collection}/item`,
      `/api/v1/organization/${ids.organization}/vcs/${ids.vcs}`,
      `/api/v1/organization/${ids.organization}?include=vcs,workspace.variable,collection.item,globalvar,ssh`,
      `/api/v1/organization/${ids.organization}/globalvar`,
      `/api/v1/organization/${ids.organization}/ssh/${ids.ssh}`,
    ];
    for (const url of reads) {
      const response = await context.server.get(url);
      assert.equal(response.status, 200, `${url}: ${response.text}`);
      for (const [name, secret] of Object.entries(secrets)) assert.ok(!response.text.includes(secret), `${name} in ${url}`);
    }
  });

  it('refuses to start with a key that did not seal the stored secrets', () => {
    const result = startRefused(context.server, {
      PORT: '0',
      STRATUM_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      STRATUM_DATA_DIR: context.server.env.STRATUM_DATA_DIR ?? '',
    });
    // The embedded folder is held by the running server, which refuses first; that is covered
    // elsewhere, so only PostgreSQL reaches the key check here.
    assert.equal(result.status, 1);
    if (context.kind === 'postgres') assert.match(result.stderr, /encryption key .* does not open the secrets stored in this database/);
  });

  if (context.kind === 'postgres') {
    it('refuses to start on PostgreSQL without STRATUM_ENCRYPTION_KEY', () => {
      const result = startRefused(context.server, { PORT: '0', STRATUM_ENCRYPTION_KEY: '' });
      assert.equal(result.status, 1);
      assert.match(result.stderr, /STRATUM_ENCRYPTION_KEY is required with DATABASE_URL/);
    });
  } else {
    it('generates the embedded key into encryption.key, readable by its owner only', () => {
      const stat = fs.statSync(path.join(context.server.env.STRATUM_DATA_DIR ?? '', 'encryption.key'));
      assert.equal(stat.mode & 0o777, 0o600);
    });

    it('refuses to start a backup restored without its key, and makes no new key beside its sealed secrets', () => {
      const restored = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-restored-'));
      const backup = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-backups-')), 'stratum.db');
      const made = cli(context.server, ['backup', backup]);
      assert.equal(made.status, 0, made.stderr);
      fs.copyFileSync(backup, path.join(restored, 'stratum.db'));
      const result = startRefused(context.server, { PORT: '0', STRATUM_DATA_DIR: restored, STRATUM_ENCRYPTION_KEY: '' });
      assert.equal(result.status, 1, result.stderr);
      const keyId = new SecretCipher(currentKey(context.server)).keyId;
      assert.match(
        result.stderr,
        new RegExp(
          `holds secrets sealed with encryption key id ${keyId}, but there is no ${path.join(restored, 'encryption.key')} and STRATUM_ENCRYPTION_KEY is unset`,
        ),
      );
      assert.match(result.stderr, /put back the encryption\.key kept with that database, or set STRATUM_ENCRYPTION_KEY to it/);
      assert.deepEqual(
        fs.readdirSync(restored).filter((name) => name.endsWith('.key')),
        [],
      );
      // Put back, the key opens them.
      fs.copyFileSync(path.join(context.server.env.STRATUM_DATA_DIR ?? '', 'encryption.key'), path.join(restored, 'encryption.key'));
      const checked = cli(context.server, ['check'], { STRATUM_DATA_DIR: restored, STRATUM_ENCRYPTION_KEY: '' });
      assert.match(
        checked.stdout,
        new RegExp(`ok +encryption key +.*key id ${keyId}\\) opens the secrets the store holds`),
        checked.stdout,
      );
    });

    it('refuses to rotate the key while a server holds the data folder', () => {
      const result = cli(context.server, ['rotate-encryption-key']);
      assert.equal(result.status, 1);
      assert.match(result.stderr, /in use by another Stratum process/);
    });
  }

  it('rotates the key with the server stopped: every secret moves to the new key, the old key is refused', async () => {
    const oldKey = currentKey(context.server);
    await context.server.kill();
    const newKey = randomBytes(32).toString('base64');
    const result =
      context.kind === 'postgres'
        ? cli(context.server, ['rotate-encryption-key'], { STRATUM_NEW_ENCRYPTION_KEY: newKey })
        : cli(context.server, ['rotate-encryption-key']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /re-encrypted 8 secret values/);
    const oldKeyId = new SecretCipher(oldKey).keyId;
    assert.match(
      result.stdout,
      new RegExp(`Backups taken before this rotation hold secrets sealed with the previous key \\(id ${oldKeyId}`),
    );
    if (context.kind === 'sqlite') {
      // Backups taken before the rotation open only with the old key: it is kept, owner-readable only.
      const kept = path.join(context.server.env.STRATUM_DATA_DIR ?? '', `encryption.key.previous-${oldKeyId}`);
      assert.ok(result.stdout.includes(`kept in ${kept}`), result.stdout);
      assert.equal(fs.statSync(kept).mode & 0o777, 0o600);
      assert.equal(new SecretCipher(parseEncryptionKey(fs.readFileSync(kept, 'utf8').trim())).keyId, oldKeyId);
    }
    if (context.kind === 'postgres') {
      assert.equal(startRefused(context.server, { PORT: '0' }).status, 1, 'the old key must no longer start the server');
      context.server.env.STRATUM_ENCRYPTION_KEY = newKey;
    } else {
      assert.ok(!currentKey(context.server).equals(oldKey), 'encryption.key was not replaced');
      assert.ok(!fs.existsSync(path.join(context.server.env.STRATUM_DATA_DIR ?? '', 'encryption.key.next')));
    }
    await context.server.spawn();
    const cipher = new SecretCipher(currentKey(context.server));
    const [row] = await context.server.query('select value from variable where id = $1', [ids.variable]);
    assert.equal(cipher.open(String(row?.value), secretPlace('variable', 'value', ids.variable)), secrets.variable);
    assert.throws(() => new SecretCipher(oldKey).open(String(row?.value), secretPlace('variable', 'value', ids.variable)));
    const read = await context.server.get(`/api/v1/workspace/${ids.workspace}/variable/${ids.variable}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.data.attributes.value, null);
    assert.ok(!storeContents(context.server).includes(secrets.variable));
    // The stored state moved to the new key too, and still reads back as written.
    assert.equal((await context.server.get(statePath())).text, stateText());
  });
});

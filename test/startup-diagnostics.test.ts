import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { stratum } from './cli-run.ts';
import { createDatabase, storeKinds, TestServer } from './harness.ts';

const user = os.userInfo().username;
const key = randomBytes(32).toString('base64');
const serve = (env: Record<string, string>) => stratum(['serve'], { PORT: '0', HOST: '127.0.0.1', ...env });

/** A port on 127.0.0.1 another process holds, for as long as `use` runs. */
async function withTakenPort<T>(use: (port: string) => T | Promise<T>): Promise<T> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  try {
    return await use(String((holder.address() as net.AddressInfo).port));
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
}

/** A data folder's path whose parent exists and which does not, yet. */
const unmadeDataDir = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-port-')), 'data');

describe('start-up diagnostics', { skip: !storeKinds.includes('postgres') && 'PostgreSQL is not among the test stores' }, () => {
  it('reports every configuration problem, the missing encryption key included, before touching the database', async () => {
    const database = await createDatabase();
    try {
      const result = serve({ DATABASE_URL: database.url, STRATUM_MAX_CONNECTIONS: 'lots' });
      assert.equal(result.status, 1);
      assert.match(result.stderr, /STRATUM_ENCRYPTION_KEY is required with DATABASE_URL/);
      assert.match(result.stderr, /STRATUM_MAX_CONNECTIONS must be an integer/);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: number }>(
          "select count(*)::int as n from information_schema.tables where table_schema = 'public'",
        );
        assert.equal(rows[0]?.n, 0, 'the migrations ran before the configuration was checked');
      } finally {
        await client.end();
      }
    } finally {
      await database.drop();
    }
  });

  it('a server that is not there: names DATABASE_URL without its password, and says what to check', () => {
    const result = serve({ DATABASE_URL: 'postgres://stratum:s3cret-pw@127.0.0.1:1/stratum', STRATUM_ENCRYPTION_KEY: key });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /cannot connect to the database at DATABASE_URL=postgres:\/\/stratum:\*\*\*@127\.0\.0\.1:1\/stratum/);
    assert.match(result.stderr, /nothing accepts connections at 127\.0\.0\.1:1\. Is PostgreSQL running there\?/);
    assert.doesNotMatch(result.stderr, /s3cret-pw|migration/);
  });

  it('a database that does not exist: says so and how to create it', () => {
    const name = `stratum_missing_${randomBytes(4).toString('hex')}`;
    const result = serve({ DATABASE_URL: `postgres://${user}@127.0.0.1:5432/${name}`, STRATUM_ENCRYPTION_KEY: key });
    assert.equal(result.status, 1);
    assert.match(result.stderr, new RegExp(`the database "${name}" does not exist\\. Create it \\(createdb -h 127\\.0\\.0\\.1 -p 5432`));
  });

  it('a role that does not exist: says so and how to create it', () => {
    const role = `stratum_nobody_${randomBytes(4).toString('hex')}`;
    const result = serve({ DATABASE_URL: `postgres://${role}:pw@127.0.0.1:5432/test`, STRATUM_ENCRYPTION_KEY: key });
    assert.equal(result.status, 1);
    assert.match(result.stderr, new RegExp(`the role "${role}" does not exist\\. Create it \\(CREATE ROLE "${role}" LOGIN`));
    assert.doesNotMatch(result.stderr, /:pw@/);
  });

  it('a port in use: says so before the migrations run or a signing key is made', async () => {
    const database = await createDatabase();
    try {
      const dataDir = unmadeDataDir();
      const result = await withTakenPort((port) =>
        serve({ DATABASE_URL: database.url, STRATUM_ENCRYPTION_KEY: key, PORT: port, STRATUM_DATA_DIR: dataDir }),
      );
      assert.equal(result.status, 1);
      assert.match(result.stderr, /port \d+ on 127\.0\.0\.1 is in use by another process: stop it, or set PORT to a free port/);
      assert.equal(fs.existsSync(dataDir), false);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: number }>(
          "select count(*)::int as n from information_schema.tables where table_schema = 'public'",
        );
        assert.equal(rows[0]?.n, 0, 'the store was opened before the port was found taken');
      } finally {
        await client.end();
      }
    } finally {
      await database.drop();
    }
  });

  it('stratum check reports the same, as a problem to fix, and exits 1', () => {
    const result = stratum(['check'], { DATABASE_URL: 'postgres://stratum:s3cret-pw@127.0.0.1:1/stratum', STRATUM_ENCRYPTION_KEY: key });
    assert.equal(result.status, 1);
    assert.match(
      result.stdout,
      /FAIL {2}database +cannot connect to the database at DATABASE_URL=postgres:\/\/stratum:\*\*\*@127\.0\.0\.1:1\/stratum/,
    );
    assert.match(result.stderr, /check found 1 problem\(s\) to fix/);
    assert.doesNotMatch(result.stdout + result.stderr, /s3cret-pw/);
  });
});

describe('start-up on the embedded store', () => {
  it('a database file that is not SQLite: says which file, and to restore a backup', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-notadb-'));
    fs.writeFileSync(path.join(dataDir, 'stratum.db'), 'this is not a database, it is a note left here by mistake'.repeat(100));
    const result = serve({ STRATUM_DATA_DIR: dataDir });
    assert.equal(result.status, 1);
    assert.match(
      result.stderr,
      new RegExp(`stratum\\.db in the data folder ${dataDir} \\(STRATUM_DATA_DIR\\) is not a readable SQLite database`),
    );
    assert.match(result.stderr, /Restore it from a backup/);
  });

  it('a data folder that cannot be made (under /proc): says which and what to set, at once, without spinning', () => {
    const result = serve({ STRATUM_DATA_DIR: '/proc/stratum-data/inner' });
    assert.equal(result.status, 1, "the server did not exit: Node's recursive mkdir retries forever there");
    assert.match(
      result.stderr,
      /cannot create the data folder \/proc\/stratum-data\/inner \(STRATUM_DATA_DIR\): making \/proc\/stratum-data failed \(ENOENT\)\. Set STRATUM_DATA_DIR/,
    );
  });

  it('a port in use, of the API or of the metrics: says so before it makes the data folder, the database or a key', async () => {
    for (const setting of ['PORT', 'STRATUM_METRICS_PORT']) {
      const dataDir = unmadeDataDir();
      const result = await withTakenPort((port) =>
        serve({ [setting]: port, STRATUM_METRICS_HOST: '127.0.0.1', STRATUM_DATA_DIR: dataDir }),
      );
      assert.equal(result.status, 1, result.stderr);
      assert.match(
        result.stderr,
        new RegExp(`port \\d+ on 127\\.0\\.0\\.1 is in use by another process: stop it, or set ${setting} to a free port`),
      );
      assert.equal(
        fs.existsSync(dataDir),
        false,
        `${setting} taken, and ${dataDir} was made: ${fs.existsSync(dataDir) ? fs.readdirSync(dataDir).join(', ') : ''}`,
      );
    }
  });

  it('a misspelled setting is warned about at start and by stratum check, naming the setting it resembles', async () => {
    const server = await TestServer.start('sqlite', { STRATUM_METRIC_PORT: '9100', STRATUM_NOT_A_THING: '1' });
    try {
      const warnings = server.logs.map((text) => JSON.parse(text) as Record<string, unknown>).filter((line) => line.level === 40);
      assert.deepEqual(
        warnings.map((line) => line.msg),
        [
          'STRATUM_METRIC_PORT is not a setting of Stratum and is ignored: did you mean STRATUM_METRICS_PORT?',
          "STRATUM_NOT_A_THING is not a setting of Stratum and is ignored (the settings are listed in the README's configuration table)",
        ].sort(),
      );
      const checked = stratum(['check'], { ...server.env, STRATUM_METRIC_PORT: '9100' });
      assert.equal(checked.status, 0, 'a warning alone is no failure');
      assert.match(
        checked.stdout,
        /WARN {2}configuration +STRATUM_METRIC_PORT is not a setting of Stratum and is ignored: did you mean STRATUM_METRICS_PORT\?/,
      );
    } finally {
      await server.stop();
    }
  });

  it('the listening line gives the bound address, the docs, the first token command and the key fingerprint', async () => {
    const server = await TestServer.start('sqlite');
    try {
      const line = server.logs.map((text) => JSON.parse(text) as Record<string, unknown>).find((l) => typeof l.address === 'string');
      assert.ok(line !== undefined);
      assert.equal(line.address, server.url);
      assert.equal(line.docs, `${server.url}/api/docs`);
      assert.equal(line.openapi, `${server.url}/api/openapi.json`);
      assert.match(String(line.firstToken), /npx stratum token --subject you@example\.com --groups STRATUM_ADMIN$/);
      const fingerprint = createHash('sha256')
        .update(server.env.STRATUM_TOKEN_KEY ?? '')
        .digest('hex')
        .slice(0, 12);
      assert.equal(line.signingKey, fingerprint);
      assert.match(
        String(line.msg),
        new RegExp(
          `^listening on ${server.url}; runs no jobs \\(STRATUM_EXECUTOR=off\\); API docs at ${server.url}/api/docs; mint a first administrator token with: `,
        ),
      );
      assert.deepEqual(line.jobs, { jobs: 'off', detail: 'STRATUM_EXECUTOR=off: `stratum executor` processes run the jobs' });
      const port = new URL(server.url).port;
      const taken = serve({ PORT: port, STRATUM_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-port-')) });
      assert.equal(taken.status, 1);
      assert.match(taken.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use by another process`));
    } finally {
      await server.stop();
    }
  });
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { it } from 'node:test';
import { stratum } from './cli-run.ts';
import { describeEachStore } from './harness.ts';

/** This version's migrations, read from the folder that holds them. */
const migrations = fs
  .readdirSync(new URL('../src/store/migrations/', import.meta.url))
  .filter((file) => /^\d{4}-/.test(file))
  .map((file) => file.replace(/\.ts$/, ''))
  .sort();
const schema = migrations.at(-1) ?? '';

describeEachStore('upgrades: what a start says of the schema', (context) => {
  const logLines = () => context.server.logs.map((line) => JSON.parse(line) as Record<string, unknown>);

  it('the first start logs every migration it applied, and the schema and version it serves', () => {
    const migrated = logLines().find((line) => Array.isArray(line.migrations));
    assert.ok(migrated !== undefined, 'no line about migrations');
    assert.deepEqual(migrated.migrations, migrations);
    assert.equal(migrated.schema, schema);
    assert.equal(migrated.msg, `applied ${migrations.length} database migration(s): ${migrations.join(', ')}; the schema is now ${schema}`);
    const listening = logLines().find((line) => typeof line.address === 'string');
    assert.equal(listening?.schema, schema);
    assert.match(String(listening.version), /^\d+\.\d+\.\d+/);
  });

  it('a restart on the same database says it is up to date', async () => {
    await context.server.kill();
    context.server.logs.length = 0;
    await context.server.spawn();
    const migrated = logLines().find((line) => Array.isArray(line.migrations));
    assert.deepEqual(migrated?.migrations, []);
    assert.equal(migrated.msg, `database schema up to date (${schema})`);
  });

  it('a database a newer version migrated is refused at start with what to do, the same words as stratum check', async () => {
    await context.server.kill();
    const future = '9999-from-a-later-version';
    await context.server.execute('insert into stratum_migration (name, timestamp) values ($1, $2)', [future, new Date().toISOString()]);
    try {
      const started = stratum(['serve'], { ...context.server.env, PORT: '0', HOST: '127.0.0.1' });
      assert.equal(started.status, 1);
      assert.match(
        started.stderr,
        new RegExp(
          `the database was migrated by a newer Stratum \\(${future}\\) than this one \\(schema ${schema}\\): run that version or a later one`,
        ),
      );
      assert.doesNotMatch(started.stderr, /corrupted/);
      const checked = stratum(['check'], context.server.env);
      assert.equal(checked.status, 1);
      assert.match(checked.stdout, new RegExp(`migrated by a newer Stratum \\(${future}\\)`));
    } finally {
      await context.server.execute('delete from stratum_migration where name = $1', [future]);
      await context.server.spawn();
    }
  });
});

it('the upgrade notes in docs/operations.md say what every migration changes', () => {
  const operations = fs.readFileSync(new URL('../docs/operations.md', import.meta.url), 'utf8');
  const notes = operations.slice(operations.indexOf('## Upgrade notes'));
  assert.ok(operations.includes('## Upgrade notes'), 'docs/operations.md has no "Upgrade notes" section');
  for (const migration of migrations) assert.match(notes, new RegExp(`\`${migration}\``), `${migration} has no upgrade note`);
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Sqlite from 'better-sqlite3';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { embeddedDatabaseFile, openStore, type Store } from '../src/store/database.ts';
import { withStatementCache } from '../src/store/sqlite-statements.ts';

/**
 * The embedded store keeps its statements prepared and reads rows as arrays, making the objects
 * itself: what a query returns must be what better-sqlite3 itself would have returned, also after
 * the schema changes under a statement it keeps.
 */
describe('the embedded store’s kept statements', () => {
  let dataDir: string;
  let store: Store;
  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-statements-'));
    store = await openStore(loadConfig({ STRATUM_DATA_DIR: dataDir }));
    await sql`create table shapes (a text, b integer)`.execute(store.db);
    await sql`insert into shapes (a, b) values ('one', 1), ('two', null)`.execute(store.db);
  });
  after(async () => {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** The rows better-sqlite3 returns for the same statement, on its own connection. */
  function direct(text: string): unknown[] {
    const handle = new Sqlite(embeddedDatabaseFile(dataDir), { readonly: true });
    try {
      return handle.prepare(text).all();
    } finally {
      handle.close();
    }
  }

  const read = async (text: string) => (await sql.raw<Record<string, unknown>>(text).execute(store.db)).rows;

  it('returns rows as better-sqlite3 makes them: plain objects, columns in order, nulls kept', async () => {
    const rows = await read('select * from shapes order by a');
    assert.deepEqual(rows, direct('select * from shapes order by a'));
    assert.deepEqual(rows, [
      { a: 'one', b: 1 },
      { a: 'two', b: null },
    ]);
    assert.deepEqual(Object.keys(rows[0] ?? {}), ['a', 'b']);
    assert.equal(Object.getPrototypeOf(rows[0]), Object.prototype);
  });

  it('gives a name used twice the value of its last column, as better-sqlite3 does', async () => {
    const text = 'select a, b, b as a from shapes order by shapes.a';
    assert.deepEqual(await read(text), direct(text));
    assert.deepEqual((await read(text))[0], { a: 1, b: 1 });
  });

  it('sees the columns a table gained after its statement was first kept', async () => {
    assert.deepEqual(Object.keys((await read('select * from shapes'))[0] ?? {}), ['a', 'b']);
    await sql`alter table shapes add column c text default 'new'`.execute(store.db);
    const rows = await read('select * from shapes order by a');
    assert.deepEqual(rows, direct('select * from shapes order by a'));
    assert.deepEqual(rows[0], { a: 'one', b: 1, c: 'new' });
  });

  it('streams the same rows it returns', async () => {
    const streamed: unknown[] = [];
    for await (const row of store.db.selectFrom(sql.table('shapes').as('s')).selectAll().orderBy(sql.ref('a')).stream()) {
      streamed.push(row);
    }
    assert.deepEqual(streamed, await read('select * from shapes order by a'));
  });

  it('returns the rows of a write that returns them, and a count of those that do not', async () => {
    const returned = await read(`insert into shapes (a, b) values ('three', 3) returning a, b`);
    assert.deepEqual(returned, [{ a: 'three', b: 3 }]);
    const result = await sql`update shapes set b = b + 1 where b is not null`.execute(store.db);
    assert.equal(result.numAffectedRows, 2n);
  });

  it('keeps statements bounded in bytes: a long text is prepared each time, and many texts push out the oldest', () => {
    const handle = new Sqlite(':memory:');
    let prepared = 0;
    const counting = new Proxy(handle, {
      get: (target, name, receiver) => {
        if (name !== 'prepare') return Reflect.get(target, name, receiver) as unknown;
        return (text: string) => {
          prepared++;
          return target.prepare(text);
        };
      },
    });
    const cache = withStatementCache(counting);
    // A caller's filter can make a long text: kept, it would hold its memory for good.
    const long = `select 1 where '${'x'.repeat(20 * 1024)}' <> ''`;
    cache.prepare(long);
    cache.prepare(long);
    assert.equal(prepared, 2);
    // 15 KiB texts, each different: 4 MiB holds fewer than 300 of them, so the first is gone when it comes back.
    const text = (i: number) => `select ${i} where '${'x'.repeat(15 * 1024)}' <> ''`;
    prepared = 0;
    for (let i = 0; i < 300; i++) cache.prepare(text(i));
    cache.prepare(text(299));
    assert.equal(prepared, 300, 'the latest is kept');
    cache.prepare(text(0));
    assert.equal(prepared, 301, 'the oldest was pushed out');
    handle.close();
  });
});

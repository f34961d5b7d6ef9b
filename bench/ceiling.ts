/**
 * The ceiling a scenario is measured against: a bare Fastify server running the same one query
 * through the same driver on Stratum's own tables, with no authentication, validation, visibility
 * or serialization beyond the framework's JSON. It listens on the port given and prints it.
 *
 *   node --import tsx bench/ceiling.ts sqlite <data folder> | postgres <DATABASE_URL>
 */
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';
import { newRecordId } from '../src/store/record-id.ts';

type Query = (sql: { sqlite: string; postgres: string }, parameters: unknown[]) => Promise<unknown[]>;

function connect(kind: string, location: string): Query {
  if (kind === 'sqlite') {
    const db = new Sqlite(path.join(location, 'stratum.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    const statements = new Map<string, Sqlite.Statement>();
    return (sql, parameters) => {
      let statement = statements.get(sql.sqlite);
      if (statement === undefined) statements.set(sql.sqlite, (statement = db.prepare(sql.sqlite)));
      return Promise.resolve(statement.reader ? statement.all(...parameters) : [statement.run(...parameters)]);
    };
  }
  const pool = new pg.Pool({ connectionString: location, max: 10 });
  return async (sql, parameters) => (await pool.query(sql.postgres, parameters)).rows as unknown[];
}

const same = (text: string) => ({ sqlite: text.replace(/\$\d+/g, '?'), postgres: text });
const filteredItems = {
  sqlite: `select * from item where collection_id = ? and key glob 'PROD_*' and category = 'ENV' order by updated_date desc, id desc limit 51`,
  postgres: `select * from item where collection_id = $1 and key like 'PROD\\_%' and category = 'ENV' order by updated_date desc, id desc limit 51`,
};
const countedItems = {
  sqlite: `select count(*) as total from item where collection_id = ? and key glob 'PROD_*' and category = 'ENV'`,
  postgres: `select count(*) as total from item where collection_id = $1 and key like 'PROD\\_%' and category = 'ENV'`,
};

const [kind = 'sqlite', location = ''] = process.argv.slice(2);
const query = connect(kind, location);
const app = Fastify({ logger: false });
app.get<{ Params: { id: string } }>(
  '/template/:id',
  async (request) => (await query(same('select * from template where id = $1'), [request.params.id]))[0],
);
app.get<{ Params: { id: string } }>('/workspace/:id/variable', (request) =>
  query(same('select * from variable where workspace_id = $1 order by created_date, id limit 100'), [request.params.id]),
);
app.post<{ Params: { id: string }; Body: { data: { attributes: Record<string, string> } } }>(
  '/workspace/:id/variable',
  async (request, reply) => {
    const { key, value, category } = request.body.data.attributes;
    const now = new Date().toISOString();
    const row = [newRecordId(), request.params.id, key, value, category, 'bench@example.com', now, 'bench@example.com', now];
    await query(
      same(
        'insert into variable (id, workspace_id, key, value, category, sensitive, hcl, incomplete, created_by, created_date, updated_by, updated_date) values ($1, $2, $3, $4, $5, 0, 0, 0, $6, $7, $8, $9)',
      ),
      row,
    );
    return reply.code(201).send({ id: row[0] });
  },
);
app.get<{ Params: { id: string } }>('/collection/:id/item', (request) => query(filteredItems, [request.params.id]));
app.get<{ Params: { id: string } }>('/collection/:id/item/count', async (request) => (await query(countedItems, [request.params.id]))[0]);
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ address })}\n`);

/**
 * Builds a large data set straight in a store, with batched SQL: an organization, a collection of
 * `--items` items (and a second of 10,000, for comparison), a workspace with 100 variables and a
 * template. For benchmarks and for operators' trials. Uses the configuration of the service
 * (STRATUM_DATA_DIR or DATABASE_URL), so run it with the server stopped on the embedded store.
 *
 *   npm run seed -- --items 1000000
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { loadConfig, type Config } from '../src/config.ts';
import { openStore, type Store } from '../src/store/database.ts';
import { newRecordId } from '../src/store/record-id.ts';

export interface SeededIds {
  organization: string;
  /** The collection of `items` items. */
  collection: string;
  /** A collection of 10,000 items spread the same way. */
  smallCollection: string;
  workspace: string;
  template: string;
}

const who = 'seed@example.com';
const environments = ['PROD', 'STAGE', 'DEV', 'TEST'];

/** Rows per INSERT: 12 columns each stays under PostgreSQL's 65,535 bound parameters. */
const batchSize = 1000;

function audit(time: string): Record<string, string> {
  return { created_by: who, created_date: time, updated_by: who, updated_date: time };
}

/**
 * Item n of a collection: a quarter of keys per environment, categories alternating, update times
 * spread over a year, so a prefix filter, an equality and a sort on the update time each select a
 * realistic share.
 */
function item(collection: string, n: number, start: number): Record<string, unknown> {
  const created = new Date(start + n * 1000).toISOString();
  const updated = new Date(start + ((n * 7919) % 31_536_000) * 1000).toISOString();
  return {
    id: newRecordId(),
    collection_id: collection,
    key: `${environments[n % 4] ?? 'DEV'}_SETTING_${String(n).padStart(7, '0')}`,
    value: `value-${n}`,
    description: null,
    category: n % 3 === 0 ? 'TERRAFORM' : 'ENV',
    sensitive: 0,
    hcl: 0,
    ...audit(created),
    updated_date: updated,
  };
}

async function insertItems(store: Store, collection: string, count: number): Promise<void> {
  const start = Date.parse('2025-01-01T00:00:00.000Z');
  await store.db.transaction().execute(async (trx) => {
    for (let from = 0; from < count; from += batchSize) {
      const rows = [];
      for (let n = from; n < Math.min(count, from + batchSize); n++) rows.push(item(collection, n, start));
      await trx.insertInto('item').values(rows).execute();
    }
  });
}

/** Seeds the configured store and returns the ids of what it made. */
export async function seed(config: Config, items: number): Promise<SeededIds> {
  const store = await openStore(config);
  try {
    const now = new Date().toISOString();
    const ids: SeededIds = {
      organization: newRecordId(),
      collection: newRecordId(),
      smallCollection: newRecordId(),
      workspace: newRecordId(),
      template: newRecordId(),
    };
    const suffix = ids.organization.slice(-12);
    await store.db
      .insertInto('organization')
      .values({
        id: ids.organization,
        name: `seed-${suffix}`,
        description: 'Seeded data',
        execution_mode: 'remote',
        icon: null,
        disabled: 0,
        ...audit(now),
      })
      .execute();
    await store.db
      .insertInto('template')
      .values({
        id: ids.template,
        organization_id: ids.organization,
        name: 'Plan',
        description: null,
        version: '1.0.0',
        tcl: 'ZmxvdzogW10K',
        ...audit(now),
      })
      .execute();
    for (const [id, name] of [
      [ids.collection, 'large'],
      [ids.smallCollection, 'small'],
    ] as const) {
      await store.db
        .insertInto('collection')
        .values({ id, organization_id: ids.organization, name, description: null, priority: 0, ...audit(now) })
        .execute();
    }
    await store.db
      .insertInto('workspace')
      .values({
        id: ids.workspace,
        organization_id: ids.organization,
        name: 'seeded',
        branch: 'main',
        folder: '/',
        iac_type: 'terraform',
        execution_mode: 'remote',
        allow_remote_apply: 0,
        global_remote_state: 1,
        locked: 0,
        deleted: 0,
        last_job_status: 'NeverExecuted',
        ...audit(now),
      })
      .execute();
    const variables = Array.from({ length: 100 }, (_, n) => ({
      id: newRecordId(),
      workspace_id: ids.workspace,
      key: `VARIABLE_${n}`,
      value: `value-${n}`,
      description: null,
      category: 'ENV',
      sensitive: 0,
      hcl: 0,
      incomplete: 0,
      ...audit(now),
    }));
    await store.db.insertInto('variable').values(variables).execute();
    await insertItems(store, ids.collection, items);
    await insertItems(store, ids.smallCollection, 10_000);
    // Statistics for the query planner, as a store that grew over time would have them (PostgreSQL's
    // autovacuum, Stratum's own runs on SQLite): without them a planner guesses how much a key prefix selects.
    await sql`analyze`.execute(store.db);
    return ids;
  } finally {
    await store.close();
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const { values } = parseArgs({ options: { items: { type: 'string', default: '1000000' } }, strict: true });
  const items = Number(values.items);
  if (!Number.isSafeInteger(items) || items < 0) throw new Error('--items must be a whole number');
  const started = Date.now();
  const ids = await seed(loadConfig(), items);
  process.stdout.write(`${JSON.stringify({ ...ids, items, seconds: (Date.now() - started) / 1000 })}\n`);
}

/**
 * `npm run bench`: Stratum against the ceiling of each scenario (a bare server running the same
 * query through the same driver), alternated in one run on each store, every figure also given as a
 * ratio to its ceiling so results compare across machines. Writes bench/results/<time>.json and .md.
 *
 *   npm run bench -- [--stores sqlite,postgres] [--duration 10] [--rounds 2] [--items 1000000] [--growth 60] [--only text]
 *
 * `--only` runs just the load scenarios whose name holds the text (`--only POST`), without the
 * latency and growth measurements: a quick comparison while changing the request path.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { TokenSigner } from '../src/auth/tokens.ts';
import type { LoadJob, LoadResult } from './load.ts';
import { summarize, type LatencyScenario, type Measured, type StoreResult, type ThroughputScenario } from './report.ts';
import { seed, type SeededIds } from './seed.ts';
import { createStore, residentMiB, startCeiling, startStratum, type BenchStore, type RunningServer, type StoreKind } from './servers.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    stores: { type: 'string', default: 'sqlite,postgres' },
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    items: { type: 'string', default: '1000000' },
    growth: { type: 'string', default: '60' },
    only: { type: 'string' },
  },
  strict: true,
});
const durationSeconds = Number(values.duration);
const rounds = Number(values.rounds);

/** Runs one load job in its own process while sampling the server's resident memory. */
async function load(job: LoadJob, pid: number): Promise<Measured> {
  let peak = residentMiB(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, residentMiB(pid))), 50);
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'load.ts'), JSON.stringify(job)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`load generator exited with ${String(code)}`))));
  });
  clearInterval(sampler);
  return { ...(JSON.parse(output) as LoadResult), peakRssMiB: Math.round(peak) };
}

/** Load before each scenario's rounds, not counted. */
const warmUpSeconds = 2;

/** Requests sent before a latency series, not counted: the first ones also plan the query and read cold pages. */
const warmUpRequests = 3;

/**
 * Sequential requests, one at a time: the latency of one query's answer, without queueing. At least
 * 200 of them, so that the 99th percentile is not simply the slowest.
 */
async function latency(url: string, headers: Record<string, string>, count: number): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = -warmUpRequests; i < count; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    if (i >= 0) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round((times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0) * 100) / 100;
  return { p50: at(0.5), p99: at(0.99) };
}

async function benchStore(kind: StoreKind, items: number): Promise<StoreResult> {
  const store = await createStore(kind);
  try {
    const seeded = Date.now();
    const ids = await seed(loadConfig({ ...process.env, ...store.env, DATABASE_URL: store.env.DATABASE_URL ?? '' }), items);
    const seedSeconds = (Date.now() - seeded) / 1000;
    const startMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const server = await startStratum(store);
      startMs.push(Math.round(server.startMs));
      await server.stop();
    }
    const stratum = await startStratum(store);
    const ceiling = await startCeiling(store);
    try {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const idleRssMiB = Math.round(residentMiB(stratum.pid));
      const result = await measure(store, ids, stratum, ceiling);
      return { store: kind, items, seedSeconds, startMs, idleRssMiB, ...result };
    } finally {
      await stratum.stop();
      await ceiling.stop();
    }
  } finally {
    await store.drop();
  }
}

async function measure(store: BenchStore, ids: SeededIds, stratum: RunningServer, ceiling: RunningServer) {
  const signer = new TokenSigner(store.env.STRATUM_TOKEN_KEY ?? '', 'STRATUM_ADMIN');
  const { token } = await signer.sign({
    subject: 'bench@example.com',
    email: 'bench@example.com',
    groups: ['STRATUM_ADMIN'],
    ttlSeconds: 86400,
  });
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' };
  const json = { 'content-type': 'application/json' };
  const variable = '{"data":{"type":"variable","attributes":{"key":"K{n}","value":"v","category":"ENV"}}}';
  const api = `${stratum.url}/api/v1`;
  const scenarios: { name: string; connections: number; stratum: LoadJob; ceiling: LoadJob }[] = [];
  for (const connections of [32, 64]) {
    scenarios.push({
      name: 'GET one template by id',
      connections,
      stratum: { url: `${api}/organization/${ids.organization}/template/${ids.template}`, connections, durationSeconds, headers: auth },
      ceiling: { url: `${ceiling.url}/template/${ids.template}`, connections, durationSeconds, headers: json },
    });
    scenarios.push({
      name: 'GET a page of 100 variables',
      connections,
      stratum: { url: `${api}/workspace/${ids.workspace}/variable?page[size]=100`, connections, durationSeconds, headers: auth },
      ceiling: { url: `${ceiling.url}/workspace/${ids.workspace}/variable`, connections, durationSeconds, headers: json },
    });
  }
  for (const connections of [16, 64]) {
    scenarios.push({
      name: 'POST a variable',
      connections,
      stratum: {
        url: `${api}/workspace/${ids.workspace}/variable`,
        method: 'POST',
        body: variable,
        connections,
        durationSeconds,
        headers: auth,
      },
      ceiling: {
        url: `${ceiling.url}/workspace/${ids.workspace}/variable`,
        method: 'POST',
        body: variable,
        connections,
        durationSeconds,
        headers: json,
      },
    });
  }
  const mixed = (url: string, writeUrl: string, headers: Record<string, string>, seconds: number): LoadJob => ({
    url,
    writeUrl,
    writesInTen: 2,
    body: variable,
    connections: 64,
    durationSeconds: seconds,
    headers,
  });
  const readUrl = `${api}/workspace/${ids.workspace}/variable?page[size]=100`;
  scenarios.push({
    name: 'mixed 80% page of 100 / 20% POST',
    connections: 64,
    stratum: mixed(readUrl, `${api}/workspace/${ids.workspace}/variable`, auth, durationSeconds),
    ceiling: mixed(
      `${ceiling.url}/workspace/${ids.workspace}/variable`,
      `${ceiling.url}/workspace/${ids.workspace}/variable`,
      json,
      durationSeconds,
    ),
  });

  const only = values.only?.toLowerCase();
  const selected = scenarios.filter((scenario) => only === undefined || scenario.name.toLowerCase().includes(only));
  const throughput: ThroughputScenario[] = [];
  for (const scenario of selected) {
    const entry: ThroughputScenario = { name: scenario.name, connections: scenario.connections, stratum: [], ceiling: [] };
    // Uncounted: the first seconds of a scenario also compile its code paths and fill caches.
    await load({ ...scenario.stratum, durationSeconds: warmUpSeconds }, stratum.pid);
    await load({ ...scenario.ceiling, durationSeconds: warmUpSeconds }, ceiling.pid);
    for (let round = 0; round < rounds; round++) {
      entry.stratum.push(await load(scenario.stratum, stratum.pid));
      entry.ceiling.push(await load(scenario.ceiling, ceiling.pid));
    }
    process.stderr.write(
      `${store.kind} ${scenario.name} (${scenario.connections}): ${JSON.stringify(entry.stratum.map((m) => Math.round(m.requestsPerSecond)))} / ${JSON.stringify(entry.ceiling.map((m) => Math.round(m.requestsPerSecond)))}\n`,
    );
    throughput.push(entry);
  }
  if (only !== undefined) {
    const rss = Math.round(residentMiB(stratum.pid));
    return { throughput, latency: [], growth: { seconds: 0, beforeMiB: rss, afterMiB: rss } };
  }

  const filter = '?filter=key==PROD_*;category==ENV&sort=-updatedDate&page[size]=50';
  const latencies: LatencyScenario[] = [];
  for (const [name, collection] of [
    ['filtered, sorted page of 50 over the large collection', ids.collection],
    ['the same over 10,000 items', ids.smallCollection],
  ] as const) {
    latencies.push({
      name,
      stratum: await latency(`${api}/organization/${ids.organization}/collection/${collection}/item${filter}`, auth, 200),
      ceiling: await latency(`${ceiling.url}/collection/${collection}/item`, json, 200),
    });
  }
  latencies.push({
    name: 'page[totals] of that filter over the large collection',
    stratum: await latency(`${api}/organization/${ids.organization}/collection/${ids.collection}/item${filter}&page[totals]`, auth, 200),
    ceiling: await latency(`${ceiling.url}/collection/${ids.collection}/item/count`, json, 200),
  });

  const growthSeconds = Number(values.growth);
  await load(mixed(readUrl, `${api}/workspace/${ids.workspace}/variable`, auth, 10), stratum.pid);
  const beforeMiB = Math.round(residentMiB(stratum.pid));
  await load(mixed(readUrl, `${api}/workspace/${ids.workspace}/variable`, auth, growthSeconds), stratum.pid);
  const afterMiB = Math.round(residentMiB(stratum.pid));
  return { throughput, latency: latencies, growth: { seconds: growthSeconds, beforeMiB, afterMiB } };
}

const results: StoreResult[] = [];
for (const kind of values.stores.split(',') as StoreKind[]) results.push(await benchStore(kind, Number(values.items)));
const run = {
  date: new Date().toISOString(),
  host: { cpus: os.cpus().length, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
  durationSeconds,
  rounds,
  results,
};
const stamp = run.date.replace(/[:.]/g, '-');
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(path.join(here, 'results', `${stamp}.json`), `${JSON.stringify(run, null, 2)}\n`);
const markdown = summarize(run);
fs.writeFileSync(path.join(here, 'results', `${stamp}.md`), markdown);
process.stdout.write(markdown);

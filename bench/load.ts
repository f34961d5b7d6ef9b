/**
 * One load run in a process of its own, so the load generator never shares a CPU budget or an event
 * loop with what it measures: reads a JSON job on argv, prints autocannon's summary as JSON.
 */
import autocannon from 'autocannon';

export interface LoadJob {
  url: string;
  connections: number;
  durationSeconds: number;
  headers: Record<string, string>;
  method?: 'GET' | 'POST';
  /** A body with `{n}` replaced by a number unique to each request. */
  body?: string;
  /** Of every ten requests, how many are the POST (the others GET `url`); the POST goes to `writeUrl`. */
  writesInTen?: number;
  writeUrl?: string;
}

export interface LoadResult {
  requestsPerSecond: number;
  latency: { p50: number; p99: number; max: number };
  requests: number;
  errors: number;
  non2xx: number;
}

async function run(job: LoadJob): Promise<LoadResult> {
  let n = 0;
  const unique = () => `${process.pid}_${n++}`;
  const post = (url: string): autocannon.Request => ({
    method: 'POST',
    path: new URL(url).pathname,
    setupRequest: (request) => ({ ...request, body: (job.body ?? '').replaceAll('{n}', unique()) }),
  });
  const get = (url: string): autocannon.Request => ({ method: 'GET', path: new URL(url).pathname + new URL(url).search });
  let requests: autocannon.Request[];
  if (job.writesInTen !== undefined && job.writeUrl !== undefined) {
    requests = Array.from({ length: 10 }, (_, i) => (i < (job.writesInTen ?? 0) ? post(job.writeUrl ?? '') : get(job.url)));
  } else {
    requests = [job.method === 'POST' ? post(job.url) : get(job.url)];
  }
  const result = await autocannon({
    url: new URL(job.url).origin,
    connections: job.connections,
    duration: job.durationSeconds,
    headers: job.headers,
    requests,
  });
  return {
    requestsPerSecond: result.requests.average,
    latency: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

const job = JSON.parse(process.argv[2] ?? '{}') as LoadJob;
process.stdout.write(`${JSON.stringify(await run(job))}\n`);

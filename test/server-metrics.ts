import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestServer } from './harness.ts';

/** The address of a server's metrics listener (it runs with STRATUM_METRICS_PORT), from its start line. */
export function metricsUrl(server: TestServer): string {
  const line = server.logs.map((text) => JSON.parse(text) as Record<string, unknown>).find((l) => l.msg === 'metrics listening');
  assert.ok(line !== undefined, 'the server serves no metrics: start it with STRATUM_METRICS_PORT');
  return String(line.metrics);
}

/** One scrape of a server's metrics: each series, written with its labels, and its value. */
export async function scrape(server: TestServer): Promise<Map<string, number>> {
  const response = await fetch(metricsUrl(server));
  assert.equal(response.status, 200);
  const series = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    const match = /^([^#\s][^ ]*) (\S+)$/.exec(line);
    if (match?.[1] !== undefined) series.set(match[1], Number(match[2]));
  }
  return series;
}

const mebibyte = 1024 * 1024;

/**
 * The server's resident memory while `work` runs, as its own metrics tell it: before, and at its
 * highest, which is the larger of the kernel's high-water mark (a peak between two scrapes shows
 * there, though it also remembers anything earlier in the process's life) and the highest of
 * `process_resident_memory_bytes` scraped every few milliseconds meanwhile.
 */
export async function memoryDuring<T>(
  server: TestServer,
  work: () => Promise<T>,
): Promise<{ result: T; beforeMiB: number; peakMiB: number }> {
  const resident = (series: Map<string, number>) => series.get('process_resident_memory_bytes') ?? Number.NaN;
  const before = resident(await scrape(server));
  let highest = before;
  const done = new AbortController();
  let silent: unknown;
  const sampling = (async () => {
    while (!done.signal.aborted) {
      try {
        highest = Math.max(highest, resident(await scrape(server)));
      } catch (error) {
        silent = error;
        return;
      }
      await sleep(20);
    }
  })();
  let result: T;
  try {
    result = await work();
  } finally {
    done.abort();
    await sampling;
  }
  if (silent !== undefined) throw new Error('the server stopped answering its metrics listener', { cause: silent });
  const last = await scrape(server);
  const peak = Math.max(highest, resident(last), last.get('stratum_process_resident_memory_peak_bytes') ?? 0);
  return { result, beforeMiB: before / mebibyte, peakMiB: peak / mebibyte };
}

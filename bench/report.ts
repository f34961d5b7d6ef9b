/** The Markdown summary of a benchmark run: each figure, its ceiling and their ratio. */
import type { LoadResult } from './load.ts';
import type { StoreKind } from './servers.ts';

export interface Measured extends LoadResult {
  peakRssMiB: number;
}
export interface ThroughputScenario {
  name: string;
  connections: number;
  stratum: Measured[];
  ceiling: Measured[];
}
export interface LatencyScenario {
  name: string;
  stratum: { p50: number; p99: number };
  ceiling: { p50: number; p99: number };
}
export interface StoreResult {
  store: StoreKind;
  items: number;
  seedSeconds: number;
  startMs: number[];
  idleRssMiB: number;
  growth: { seconds: number; beforeMiB: number; afterMiB: number };
  throughput: ThroughputScenario[];
  latency: LatencyScenario[];
}

export interface Run {
  date: string;
  host: { cpus: number; memoryGiB: number; node: string };
  durationSeconds: number;
  rounds: number;
  results: StoreResult[];
}

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
const fixed = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function throughputRow(name: string, connections: number, stratum: Measured[], ceiling: Measured[]): string {
  const rps = mean(stratum.map((m) => m.requestsPerSecond));
  const ceilingRps = mean(ceiling.map((m) => m.requestsPerSecond));
  const p50 = Math.max(...stratum.map((m) => m.latency.p50));
  const p99 = Math.max(...stratum.map((m) => m.latency.p99));
  const max = Math.max(...stratum.map((m) => m.latency.max));
  const errors = stratum.reduce((sum, m) => sum + m.errors + m.non2xx, 0);
  const rss = Math.max(...stratum.map((m) => m.peakRssMiB));
  return `| ${name} | ${connections} | ${fixed(rps)} | ${fixed(ceilingRps)} | **${fixed(rps / ceilingRps, 2)}** | ${p50} / ${p99} / ${max} | ${errors} | ${rss} |`;
}

export function summarize(run: Run): string {
  const lines = [
    `# Benchmark ${run.date}`,
    '',
    `${run.host.cpus} CPUs, ${run.host.memoryGiB} GiB, Node ${run.host.node}; ${run.durationSeconds} s per load run, ${run.rounds} rounds alternating Stratum and its ceiling.`,
    '',
  ];
  for (const result of run.results) {
    lines.push(
      `## ${result.store}`,
      '',
      `Seeded ${fixed(result.items)} items in ${fixed(result.seedSeconds, 1)} s. Start to ready: ${result.startMs.join(', ')} ms. Idle RSS ${result.idleRssMiB} MiB; RSS ${result.growth.beforeMiB} → ${result.growth.afterMiB} MiB over ${result.growth.seconds} s of mixed load (${fixed((result.growth.afterMiB / result.growth.beforeMiB - 1) * 100, 1)}%).`,
      '',
      '| scenario | connections | Stratum req/s | ceiling req/s | ratio | p50 / p99 / max ms | errors | peak RSS MiB |',
      '|---|---|---|---|---|---|---|---|',
      ...result.throughput.map((t) => throughputRow(t.name, t.connections, t.stratum, t.ceiling)),
      '',
      '| latency, one request at a time | Stratum p50 / p99 ms | ceiling p50 / p99 ms | p50 ratio |',
      '|---|---|---|---|',
      ...result.latency.map(
        (l) =>
          `| ${l.name} | ${l.stratum.p50} / ${l.stratum.p99} | ${l.ceiling.p50} / ${l.ceiling.p99} | ${fixed(l.stratum.p50 / Math.max(0.01, l.ceiling.p50), 2)} |`,
      ),
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}

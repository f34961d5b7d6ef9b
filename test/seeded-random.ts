import { randomInt } from 'node:crypto';

/**
 * The seed of a generated run: STRATUM_FUZZ_SEED when set (to replay a run a failure printed),
 * else a new one.
 */
export function readSeed(): number {
  const text = process.env.STRATUM_FUZZ_SEED;
  if (text === undefined || text === '') return randomInt(2 ** 31);
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`STRATUM_FUZZ_SEED must be a whole number, not ${text}`);
  return value;
}

/** mulberry32: small, fast and good enough to pick test inputs; the same seed gives the same sequence. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)] as T;
  }

  /** How many hostile choices to combine: mostly one, so that each one reaches the code it aims at. */
  count(): number {
    const draw = this.next();
    return draw < 0.7 ? 1 : draw < 0.93 ? 2 : 3;
  }

  hex(length: number): string {
    let text = '';
    while (text.length < length) text += this.int(16).toString(16);
    return text;
  }

  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }

  weighted<T>(entries: readonly [T, number][]): T {
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let draw = this.next() * total;
    for (const [item, weight] of entries) {
      draw -= weight;
      if (draw < 0 && weight > 0) return item;
    }
    const last = entries.filter(([, weight]) => weight > 0).at(-1);
    if (last === undefined) throw new Error('no weighted choice');
    return last[0];
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const a = items[i] as T;
      items[i] = items[j] as T;
      items[j] = a;
    }
    return items;
  }
}

import { sql, type RawBuilder } from 'kysely';
import { ApiError } from '../errors.js';
import { attributeFields, type ResourceDeclaration, type Row } from '../model/index.js';

const mebibyte = 1024 * 1024;
/** What a row costs besides its text: ids, numbers, dates and the document around them. */
const rowOverhead = 256;
/** How long a read waits for memory that other answers hold before it gives up. */
const waitMs = 30000;

/** A reservation waiting for memory others hold. */
interface Waiter {
  bytes: number;
  budget: ResponseBudget;
  grant: () => void;
  refuse: () => void;
}

/**
 * The memory the rows of answers may hold: `perAnswer` bytes for one answer, `total` bytes for all
 * answers being built at once. A read reserves what its rows can take before it loads them, and
 * waits (in order) while others hold the rest; an answer larger than `perAnswer` is refused.
 */
export class ResponseMemory {
  private inUse = 0;
  private readonly queue: Waiter[] = [];
  /** What each answer holding memory holds of the total. */
  private readonly holders = new Map<ResponseBudget, number>();

  constructor(
    readonly perAnswer: number,
    readonly total: number,
  ) {}

  budget(): ResponseBudget {
    return new ResponseBudget(this);
  }

  /** Takes `bytes` of the total for `budget`, waiting while others hold too much of it. */
  async acquire(bytes: number, budget: ResponseBudget): Promise<void> {
    if (this.queue.length === 0 && this.inUse + bytes <= this.total) {
      this.take(bytes, budget);
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => entry.refuse(), waitMs);
      const entry: Waiter = {
        bytes,
        budget,
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
        refuse: () => {
          clearTimeout(timer);
          this.queue.splice(this.queue.indexOf(entry), 1);
          reject(busy());
        },
      };
      this.queue.push(entry);
      this.breakStall();
    });
  }

  release(bytes: number, budget: ResponseBudget): void {
    this.inUse -= bytes;
    const left = (this.holders.get(budget) ?? 0) - bytes;
    if (left > 0) this.holders.set(budget, left);
    else this.holders.delete(budget);
    // First come, first served: a large read is not starved by small ones behind it.
    while (this.queue[0] !== undefined && this.inUse + this.queue[0].bytes <= this.total) {
      const next = this.queue.shift();
      if (next === undefined) break;
      this.take(next.bytes, next.budget);
      next.grant();
    }
    this.breakStall();
  }

  private take(bytes: number, budget: ResponseBudget): void {
    if (bytes === 0) return;
    this.inUse += bytes;
    this.holders.set(budget, (this.holders.get(budget) ?? 0) + bytes);
  }

  /**
   * When every answer that holds memory waits for more, none of them can finish and give any
   * back (a GraphQL answer reserves its lists one by one): the answer that waited last is refused
   * at once (busy), rather than all of them after the whole wait, so that it ends and the others
   * go on.
   */
  private breakStall(): void {
    if (this.queue.length === 0 || this.holders.size === 0) return;
    const waiting = new Set(this.queue.map((entry) => entry.budget));
    for (const holder of this.holders.keys()) if (!waiting.has(holder)) return;
    const last = [...this.queue].reverse().find((entry) => this.holders.has(entry.budget))?.budget;
    for (const entry of this.queue.filter((e) => e.budget === last)) entry.refuse();
  }
}

const abandoned = () => new ApiError(503, { code: 'request_closed', detail: 'The request was closed before its answer was ready.' });

const busy = () =>
  new ApiError(503, { code: 'busy', detail: 'The server is building other large answers; retry shortly.' }, { retryAfterSeconds: 1 });

/** The memory one answer holds, released once the answer is built. */
export class ResponseBudget {
  private held = 0;
  /** Asked of the shared memory and not granted yet. */
  private waiting = 0;
  private closed = false;
  /** Rows already placed in the answer once: that placement shares the memory their load reserved. */
  private readonly placed = new WeakSet<Row>();

  constructor(private readonly memory: ResponseMemory) {}

  get remaining(): number {
    return this.memory.perAnswer - this.held - this.waiting;
  }

  /**
   * Reserves what a set of rows may take before loading them: their measured size, or their worst
   * case. More than this answer may still hold is refused with `refusal`. What waits for the
   * shared memory counts against the answer at once: reservations of one answer made together
   * (the lists of a GraphQL query) cannot pass its limit together while they wait.
   */
  async reserve(bytes: number, refusal: (mebibytes: string, limit: string) => ApiError): Promise<void> {
    if (bytes > this.remaining) throw refusal((bytes / mebibyte).toFixed(1), (this.memory.perAnswer / mebibyte).toFixed(0));
    if (this.closed) throw abandoned();
    this.waiting += bytes;
    try {
      await this.memory.acquire(bytes, this);
    } finally {
      this.waiting -= bytes;
    }
    this.hold(bytes);
  }

  private hold(bytes: number): void {
    // Closed while it waited: nobody would give it back.
    if (this.closed) {
      this.memory.release(bytes, this);
      throw abandoned();
    }
    this.held += bytes;
  }

  /**
   * Reserves what placing loaded rows in the answer adds to it (`bytes`, as the transport counts
   * what it writes for them), less what their first placement shares with the rows themselves,
   * which their load reserved. A row placed again (reached through another relationship, or
   * written under several names) is counted in full each time.
   */
  async reservePlacement(rows: readonly Row[], bytes: number, refusal: (limit: string) => ApiError): Promise<void> {
    let shared = 0;
    for (const row of rows) {
      if (this.placed.has(row)) continue;
      this.placed.add(row);
      shared += rowBytes(row);
    }
    if (bytes > shared) await this.reserve(bytes - shared, (_mebibytes, limit) => refusal(limit));
  }

  /** Gives back what loaded rows did not need of their reservation. */
  settle(reserved: number, used: number): void {
    const unused = Math.max(0, reserved - used);
    this.held -= unused;
    this.memory.release(unused, this);
  }

  /** Gives back everything held; a closed budget reserves nothing more (the client is gone, or has its answer). */
  close(): void {
    this.closed = true;
    const held = this.held;
    this.held = 0;
    this.memory.release(held, this);
  }
}

const worstCases = new WeakMap<ResourceDeclaration, number>();

/** The most one row of a resource can take, from its declared lengths (four bytes a character at most). */
export function worstRowBytes(resource: ResourceDeclaration): number {
  let bytes = worstCases.get(resource);
  if (bytes === undefined) {
    bytes = rowOverhead;
    for (const { attribute } of attributeFields(resource)) {
      if (attribute.kind === 'text') bytes += attribute.maxBytes ?? attribute.maxLength * 4;
      else if (attribute.kind === 'textList') bytes += 2 + attribute.maxItems * (attribute.maxLength * 4 + 3);
      else bytes += 16;
    }
    worstCases.set(resource, bytes);
  }
  return bytes;
}

/** The size of a stored row under `alias`, in SQL: what its text columns hold. `octet_length` reads no TOASTed value. */
export function rowBytesSql(resource: ResourceDeclaration, alias: string): RawBuilder<number> {
  const texts = attributeFields(resource).filter(
    (f) => f.attribute.kind === 'text' || f.attribute.kind === 'enum' || f.attribute.kind === 'textList',
  );
  const lengths = texts.map((f) => sql`coalesce(octet_length(${sql.ref(`${alias}.${f.column}`)}), 0)`);
  return sql<number>`${rowOverhead} + ${sql.join(lengths, sql` + `)}`;
}

/** The size of loaded rows, as the budget counts it. */
export function rowsBytes(rows: readonly Row[]): number {
  let bytes = 0;
  for (const row of rows) bytes += rowBytes(row);
  return bytes;
}

function rowBytes(row: Row): number {
  let bytes = rowOverhead;
  // A loop over the keys, not Object.values: no array per row on a page of a hundred.
  for (const column in row) {
    const value = row[column];
    if (typeof value === 'string') bytes += value.length;
  }
  return bytes;
}

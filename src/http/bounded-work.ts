import { ApiError } from '../errors.js';

/**
 * Heavy work requests ask for (a module's zip: a repository read and compressed) done a few at
 * a time, the rest waiting in a bounded line: a burst of downloads cannot take the server's
 * memory and processes, and past the line a client is told to come back (503 with Retry-After)
 * rather than left waiting without end.
 */
export class BoundedWork {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly what: string,
    private readonly atOnce: number,
    private readonly inLine: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.atOnce) {
      if (this.waiting.length >= this.inLine)
        throw new ApiError(
          503,
          { code: 'busy', detail: `This server builds ${this.atOnce} ${this.what} at once and ${this.inLine} wait: retry shortly.` },
          { retryAfterSeconds: 5 },
        );
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      return await task();
    } finally {
      // The slot passes to the next in line, or is freed.
      const next = this.waiting.shift();
      if (next === undefined) this.running--;
      else next();
    }
  }
}

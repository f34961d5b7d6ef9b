import { callerIdentity, type Caller } from '../auth/caller.js';

/**
 * The long-lived connections each caller holds on this server (log streams and live-channel
 * WebSockets together), bounded so that one caller, one leaked reader token among them, cannot
 * take the connections every other caller needs: the server's own cap (STRATUM_MAX_CONNECTIONS)
 * stays far above one caller's share. Counted per process, as connections are.
 */
export class CallerConnections {
  private readonly held = new Map<string, number>();

  constructor(readonly perCaller: number) {}

  /** A slot for one more connection of the caller, and the function that frees it; undefined when it holds its share. */
  take(caller: Caller): (() => void) | undefined {
    const key = callerIdentity(caller);
    const count = this.held.get(key) ?? 0;
    if (count >= this.perCaller) return undefined;
    this.held.set(key, count + 1);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left <= 0) this.held.delete(key);
      else this.held.set(key, left);
    };
  }

  /** What a caller over its share is told. */
  refusal(): string {
    return `A caller holds at most ${this.perCaller} log streams and live-channel connections at once on a server; close one, or read the log itself.`;
  }
}

/** How long a long-lived connection's last check of its caller holds before the next is made. */
const recheckMs = 5000;

/**
 * `check` (is the caller's token still valid, its access kept?) made again as a long-lived
 * connection goes on, at most every few seconds: a revoked token or a withdrawn grant ends the
 * connection soon after, where the one check at its start would let it run for as long as it lasts.
 * Answers whether the connection may go on.
 */
export function checkedNowAndThen(check: () => Promise<boolean>): () => Promise<boolean> {
  let checkedAt = Date.now();
  return async () => {
    if (Date.now() - checkedAt < recheckMs) return true;
    if (!(await check())) return false;
    checkedAt = Date.now();
    return true;
  };
}

import type { Logger } from '../log.js';

/** The HTTP service a stop closes: no new connections, then the requests in flight finish. */
export interface HttpService {
  close(): Promise<unknown>;
  server: { closeAllConnections(): void };
}

/** A part of the service a stop closes. */
export interface Closable {
  name: string;
  close(): Promise<void>;
}

/** What a stop closes, in its order around the HTTP service. */
export interface StopOrder {
  /**
   * Stopped first, while the API still answers: the runs in progress, whose interrupted tools save
   * their state and release their locks through the API's state backend. Each bounds its own wait.
   */
  first: Closable[];
  /** Closed once the HTTP service has (the metrics listener, the outbox relay, the store), in order. */
  last: Closable[];
}

/**
 * Stops the service on SIGTERM or SIGINT. First `first` (the runs in progress: each interrupted
 * tool saves its state through the API, which keeps answering meanwhile while `/readyz` says it is
 * stopping); then the listener closes (new connections are refused), requests in flight get
 * `deadlineMs` to finish, then the connections still open are closed, the rest (metrics listener,
 * outbox relay, store) closes, a last "stopped" line is logged and the process exits: 0 when every request
 * finished, 1 when the deadline cut some short. A second signal exits at once, for an operator who
 * cannot wait. `stopping` is told when the stop begins. Returns the same stop, for causes other
 * than a signal.
 */
export function stopOnSignals(
  app: HttpService,
  order: StopOrder,
  log: Logger,
  deadlineMs: number,
  stopping: () => void = () => undefined,
): (cause: string) => void {
  let started: number | undefined;
  const stop = (signal: string, fromSignal: boolean) => {
    if (started !== undefined) {
      // Only an operator's second signal cuts a stop short.
      if (!fromSignal) return;
      log.warn({ signal }, 'second signal: exiting at once');
      exitAfterFlush(log, 1);
      return;
    }
    started = Date.now();
    stopping();
    const since = started;
    const first = order.first.map((part) => part.name);
    log.info(
      { signal, first, detail: first.length === 0 ? 'closing the listener' : `stopping ${first.join(', ')} while the API still answers` },
      'stopping',
    );
    let cutShort = false;
    void closeEach(order.first, log)
      .then(async () => {
        log.info({ signal, deadlineMs, detail: 'no new connections; finishing the requests in flight' }, 'stopping the listener');
        const deadline = setTimeout(() => {
          cutShort = true;
          log.warn({ deadlineMs }, 'shutdown deadline passed: closing the connections of requests still in flight');
          app.server.closeAllConnections();
        }, deadlineMs);
        await app.close();
        clearTimeout(deadline);
        await closeEach(order.last, log);
      })
      .finally(() => {
        log.info({ signal, ms: Date.now() - since, cutShort }, 'stopped');
        exitAfterFlush(log, cutShort ? 1 : 0);
      });
  };
  process.on('SIGTERM', (signal) => stop(signal, true));
  process.on('SIGINT', (signal) => stop(signal, true));
  return (cause) => stop(cause, false);
}

/** Closes each part in order; one that fails is logged and the rest still close. */
async function closeEach(parts: readonly Closable[], log: Logger): Promise<void> {
  for (const part of parts) {
    try {
      await part.close();
    } catch (error) {
      log.error({ part: part.name, reason: error instanceof Error ? error.message : String(error) }, 'could not close cleanly');
    }
  }
}

/**
 * Stops the server as on SIGTERM once the npm process that started it is gone. `npx stratum serve`
 * runs the server under a shell that npm kills on SIGTERM without passing the signal on, and an npm
 * killed outright passes nothing: either way the server would go on running, orphaned, and the
 * process manager that sent the signal would never see its shutdown. Its parent changing is the sign.
 */
export function stopWhenNpmExits(stop: (cause: string) => void, env: NodeJS.ProcessEnv = process.env): void {
  if (env.npm_lifecycle_event === undefined) return;
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    stop('npm exited');
  }, 500);
  watch.unref();
}

/** Exits once the log lines written so far have reached stdout (the logger writes asynchronously). */
function exitAfterFlush(log: Logger, code: number): void {
  const exit = () => process.exit(code);
  // A stdout that no longer drains must not keep the process alive.
  setTimeout(exit, 1000).unref();
  log.flush(exit);
}

/** Resolves at the first SIGTERM or SIGINT: when a process that serves no HTTP (an executor, an agent) is asked to stop. */
export function stopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
}

import type { Logger } from '../log.js';

/** The HTTP service a stop closes first: no new connections, then the requests in flight finish. */
export interface HttpService {
  close(): Promise<unknown>;
  server: { closeAllConnections(): void };
}

/** What a stop closes after the HTTP server, in order. */
export interface Closable {
  name: string;
  close(): Promise<void>;
}

/**
 * Stops the service on SIGTERM or SIGINT: the listener closes at once (new connections are
 * refused), requests in flight get `deadlineMs` to finish, then the connections still open are
 * closed, the rest (metrics listener, store) closes, a last "stopped" line is logged and the process
 * exits: 0 when every request finished, 1 when the deadline cut some short. A second signal exits
 * at once, for an operator who cannot wait.
 */
export function stopOnSignals(app: HttpService, rest: readonly Closable[], log: Logger, deadlineMs: number): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting at once');
      exitAfterFlush(log, 1);
      return;
    }
    stopping = true;
    const started = Date.now();
    log.info({ signal, deadlineMs, detail: 'no new connections; finishing the requests in flight' }, 'stopping');
    let cutShort = false;
    const deadline = setTimeout(() => {
      cutShort = true;
      log.warn({ deadlineMs }, 'shutdown deadline passed: closing the connections of requests still in flight');
      app.server.closeAllConnections();
    }, deadlineMs);
    void app
      .close()
      .then(async () => {
        clearTimeout(deadline);
        for (const part of rest) {
          try {
            await part.close();
          } catch (error) {
            log.error({ part: part.name, reason: error instanceof Error ? error.message : String(error) }, 'could not close cleanly');
          }
        }
      })
      .finally(() => {
        log.info({ signal, ms: Date.now() - started, cutShort }, 'stopped');
        exitAfterFlush(log, cutShort ? 1 : 0);
      });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** Exits once the log lines written so far have reached stdout (the logger writes asynchronously). */
function exitAfterFlush(log: Logger, code: number): void {
  const exit = () => process.exit(code);
  // A stdout that no longer drains must not keep the process alive.
  setTimeout(exit, 1000).unref();
  log.flush(exit);
}

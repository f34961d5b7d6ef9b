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
 * at once, for an operator who cannot wait. Returns the same stop, for causes other than a signal.
 */
export function stopOnSignals(app: HttpService, rest: readonly Closable[], log: Logger, deadlineMs: number): (cause: string) => void {
  let stopping = false;
  const stop = (signal: string, fromSignal: boolean) => {
    if (stopping) {
      // Only an operator's second signal cuts a stop short.
      if (!fromSignal) return;
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
  process.on('SIGTERM', (signal) => stop(signal, true));
  process.on('SIGINT', (signal) => stop(signal, true));
  return (cause) => stop(cause, false);
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

import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/**
 * Structured JSON logs on stdout. Writes are buffered and flushed off the request path: per-request
 * synchronous logging halved throughput when measured (decisions.md).
 */
export function createLogger(level: Config['logLevel']): Logger {
  // minLength 1 writes each line at once, as 0 does, but makes flush() wait for the lines still being
  // written: with 0 it calls back at once, and an exit then wrote the last lines synchronously ahead of
  // the one in flight (the "stopped" line came before the one logged just before it).
  const destination = pino.destination({ dest: 1, sync: false, minLength: 1 });
  return pino({ level, base: { pid: process.pid }, timestamp: isoTimeEachMillisecond() }, destination);
}

/**
 * pino's ISO time member, formatted once per millisecond: under load many lines fall in the same
 * millisecond, and formatting the date for each was a visible share of a request's CPU.
 */
function isoTimeEachMillisecond(): () => string {
  let millisecond = -1;
  let member = '';
  return () => {
    const now = Date.now();
    if (now !== millisecond) {
      millisecond = now;
      member = `,"time":"${new Date(now).toISOString()}"`;
    }
    return member;
  };
}

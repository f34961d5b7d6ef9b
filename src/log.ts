import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/**
 * Structured JSON logs on stdout. Writes are buffered and flushed off the request path: per-request
 * synchronous logging halved throughput when measured (decisions.md).
 */
export function createLogger(level: Config['logLevel']): Logger {
  return pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: 1, sync: false }));
}

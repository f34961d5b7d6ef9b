import assert from 'node:assert/strict';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** What came back on a raw connection, and how the connection ended. */
export interface RawAnswer {
  /** Everything the server wrote before the connection ended or the wait ran out. */
  text: string;
  /** The status of the first response, when one came. */
  status: number | undefined;
  /** The first response's headers, names in lower case. */
  headers: Record<string, string>;
  /** The first response's body, parsed as JSON when it is JSON. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read error documents of every shape
  /** The server closed the connection, reset it, or left it open until the wait ran out. */
  ended: 'closed' | 'reset' | 'open';
  /** Milliseconds from the connection to its end (or to the end of the wait). */
  ms: number;
}

export interface RawRequest {
  /** Sent as soon as the connection is up: the request line and headers, perhaps part of a body. */
  head: string | Buffer;
  /** Sent after `head`, one piece every `everyMs`, until they run out or the connection ends. */
  trickle?: readonly (string | Buffer)[];
  everyMs?: number;
  /** How long to wait for the server to end the connection. */
  waitMs?: number;
}

/**
 * Talks HTTP/1.1 over a plain socket, for what fetch cannot send or does not show: malformed
 * framing, bodies that arrive a byte at a time, and whether the server closes the connection.
 */
export async function rawRequest(url: string, request: RawRequest): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port) });
  const started = Date.now();
  const chunks: Buffer[] = [];
  let ended: RawAnswer['ended'] | undefined;
  const done = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      ended ??= error.code === 'ECONNRESET' || error.code === 'EPIPE' ? 'reset' : 'closed';
    });
    socket.on('close', () => {
      ended ??= 'closed';
      resolve();
    });
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(request.head);
  const sending = (async () => {
    for (const piece of request.trickle ?? []) {
      await sleep(request.everyMs ?? 1000);
      if (ended !== undefined || socket.destroyed) return;
      socket.write(piece);
    }
  })();
  const waited = await Promise.race([done.then(() => true), sleep(request.waitMs ?? 5000).then(() => false)]);
  const ms = Date.now() - started;
  if (!waited) {
    ended = 'open';
    socket.destroy();
  }
  await sending;
  return { ...parseResponse(Buffer.concat(chunks).toString('utf8')), ended: ended ?? 'open', ms };
}

function parseResponse(text: string): Pick<RawAnswer, 'text' | 'status' | 'headers' | 'body'> {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return { text, status: undefined, headers: {}, body: undefined };
  const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  const length = Number(headers['content-length'] ?? 0);
  const bodyText = Buffer.from(text.slice(split + 4))
    .subarray(0, length)
    .toString('utf8');
  let body: unknown;
  try {
    body = bodyText === '' ? undefined : JSON.parse(bodyText);
  } catch {
    body = undefined;
  }
  return { text, status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]) || undefined, headers, body };
}

/** A socket that connects and sends part of a request line, then holds the connection. */
export async function holdConnection(url: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port) });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write('GET /healthz HTTP/1.1\r\n');
  return socket;
}

/** Request head of a POST with the given headers (a Host header is added). */
export function requestHead(method: string, path: string, headers: Record<string, string | number>): string {
  const lines = Object.entries({ host: 'localhost', ...headers }).map(([name, value]) => `${name}: ${value}`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/**
 * Asserts a JSON:API error document of the given status on a raw answer: the media type, exactly
 * one `errors` member, and status, code, title and detail in each error.
 */
export function assertRawErrorDocument(answer: RawAnswer, status: number): { code: string; title: string; detail: string } {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.headers['content-type'], 'application/vnd.api+json', answer.text);
  assert.ok(answer.body !== undefined, `not JSON: ${answer.text}`);
  assert.deepEqual(Object.keys(answer.body), ['errors'], answer.text);
  assert.ok(Array.isArray(answer.body.errors) && answer.body.errors.length > 0, answer.text);
  for (const error of answer.body.errors) {
    assert.deepEqual(Object.keys(error).sort(), ['code', 'detail', 'status', 'title'], answer.text);
    assert.equal(error.status, String(status));
    for (const member of ['code', 'title', 'detail']) assert.ok(typeof error[member] === 'string' && error[member] !== '', answer.text);
  }
  return answer.body.errors[0];
}

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Destinations } from './destinations.js';

/** How outbound calls are bounded. */
export interface OutboundLimits {
  /** The longest a call may take, from the name lookup to the last byte read. */
  timeoutMs: number;
  /** The most bytes of an answer read; the rest is left unread. */
  maxAnswerBytes: number;
  /** The most bytes of a request body sent. */
  maxRequestBytes: number;
}

/** What a call came to: the answer's status and the start of its body, or why there was none. */
export interface CallOutcome {
  /** The answer's status; undefined when none came. */
  status: number | undefined;
  /** The start of the answer's body, at most `maxAnswerBytes`, as text. */
  body: string;
  /** Whether the body was longer than what was read. */
  truncated: boolean;
  durationMs: number;
  /** Why the call failed; undefined for a 2xx answer. Never names the destination's path or query. */
  error: string | undefined;
}

/**
 * Posts a JSON body to an http(s) address: the host is resolved here and every address it resolves
 * to checked, then the connection goes to the checked address (a name that resolves elsewhere on a
 * second lookup cannot slip past). Redirects are not followed: a 3xx is a failure. Errors name the
 * host alone, since a destination's path often is its credential (Slack's and Teams' webhooks).
 */
export async function postJson(
  destinations: Destinations,
  limits: OutboundLimits,
  target: string,
  body: string,
  headers: Readonly<Record<string, string>>,
): Promise<CallOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: string): CallOutcome => ({ status: undefined, body: '', truncated: false, durationMs: elapsed(), error });
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return failed('the destination is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return failed('the destination must use http or https');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const payload = Buffer.from(body);
  if (payload.length > limits.maxRequestBytes) return failed(`the message is larger than ${limits.maxRequestBytes} bytes`);
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const address = await destinations.resolve(host);
  if ('refused' in address) return failed(address.refused);
  if (deadline.aborted) return failed(`${host} did not answer within ${limits.timeoutMs} ms`);

  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all === true) callback(null, [address]);
    else callback(null, address.address, address.family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<CallOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: CallOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const request = send(url, {
      method: 'POST',
      lookup: pinned,
      signal: deadline,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length), 'user-agent': 'Stratum' },
    });
    request.on('error', () => {
      finish(failed(deadline.aborted ? `${host} did not answer within ${limits.timeoutMs} ms` : `${host} could not be reached`));
    });
    request.on('response', (answer: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let read = 0;
      let truncated = false;
      const done = () => {
        const status = answer.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString('utf8');
        const error =
          status >= 200 && status < 300
            ? undefined
            : status >= 300 && status < 400
              ? `${host} answered ${status}: redirects are not followed`
              : `${host} answered ${status}`;
        finish({ status, body: text, truncated, durationMs: elapsed(), error });
      };
      answer.on('data', (chunk: Buffer) => {
        if (truncated) return;
        const room = limits.maxAnswerBytes - read;
        chunks.push(chunk.subarray(0, Math.max(0, room)));
        read += Math.min(chunk.length, room);
        if (chunk.length > room) {
          truncated = true;
          done();
          answer.destroy();
        }
      });
      answer.on('end', done);
      answer.on('error', () => {
        if (!truncated)
          finish(failed(deadline.aborted ? `${host} did not answer within ${limits.timeoutMs} ms` : `${host} broke off its answer`));
      });
    });
    request.end(payload);
  });
}

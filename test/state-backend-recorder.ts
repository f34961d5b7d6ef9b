/**
 * A Terraform http state backend on loopback that records every request: it stores one state,
 * locks with LOCK/UNLOCK (423 and the holder's lock info when taken), insists on Basic auth, and
 * checks every body's Content-MD5 and every upload's `?ID=` against the lock it holds.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { toolEnvironment } from './terraform-binary.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  contentMd5: string | undefined;
  /** Whether Content-MD5 was present and matched the body. */
  md5Valid: boolean;
  body: string;
  status: number;
}

export class StateBackendRecorder {
  readonly requests: RecordedRequest[] = [];
  /** The stored state as uploaded, byte for byte. */
  state: string | undefined;
  /** The lock info JSON of the holder, as the LOCK body carried it. */
  lock: string | undefined;
  /** When set, every upload is answered with this status and nothing is stored: a backend that cannot take the state. */
  refuseUploads: number | undefined;
  /** How long an upload waits for its answer: a slow backend, which keeps Terraform busy persisting. */
  uploadDelayMs = 0;
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { status, body } = this.answer(request, Buffer.concat(chunks));
      setTimeout(
        () => {
          response.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
          response.end(body);
        },
        request.method === 'POST' ? this.uploadDelayMs : 0,
      );
    });
  });

  constructor(
    readonly username: string,
    readonly password: string,
  ) {}

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The methods received since the given index, for asserting a command's request sequence. */
  methodsSince(index: number): string[] {
    return this.requests.slice(index).map((request) => request.method);
  }

  private answer(request: http.IncomingMessage, raw: Buffer): { status: number; body?: string } {
    const url = new URL(request.url ?? '/', 'http://recorder');
    const contentMd5 = request.headers['content-md5'] as string | undefined;
    const recorded: RecordedRequest = {
      method: request.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      authorization: request.headers.authorization,
      contentMd5,
      md5Valid: contentMd5 !== undefined && contentMd5 === createHash('md5').update(raw).digest('base64'),
      body: raw.toString('utf8'),
      status: 0,
    };
    this.requests.push(recorded);
    const reply = (status: number, body?: string) => {
      recorded.status = status;
      return { status, ...(body === undefined ? {} : { body }) };
    };
    const expected = `Basic ${Buffer.from(`${this.username}:${this.password}`).toString('base64')}`;
    if (recorded.authorization !== expected) return reply(401);
    if (raw.length > 0 && !recorded.md5Valid) return reply(400);
    const lockId = (text: string | undefined) => (text === undefined ? undefined : (JSON.parse(text) as { ID?: string }).ID);
    switch (recorded.method) {
      case 'GET':
        return this.state === undefined ? reply(204) : reply(200, this.state);
      case 'LOCK':
        if (this.lock !== undefined) return reply(423, this.lock);
        this.lock = recorded.body;
        return reply(200);
      case 'UNLOCK':
        if (this.lock === undefined || lockId(this.lock) !== lockId(recorded.body)) return reply(409, this.lock);
        this.lock = undefined;
        return reply(200);
      case 'POST':
        if (this.refuseUploads !== undefined) return reply(this.refuseUploads);
        if (this.lock !== undefined && url.searchParams.get('ID') !== lockId(this.lock)) return reply(409, this.lock);
        this.state = recorded.body;
        return reply(200);
      default:
        return reply(405);
    }
  }
}

/**
 * The controlled environment an executor gives Terraform, aimed at a recorder started at `url`:
 * its http backend's addresses and credentials.
 */
export function terraformEnvironment(directory: string, url: string, recorder: StateBackendRecorder): Record<string, string> {
  return {
    ...toolEnvironment(directory),
    TF_HTTP_ADDRESS: `${url}/state`,
    TF_HTTP_LOCK_ADDRESS: `${url}/state/lock`,
    TF_HTTP_UNLOCK_ADDRESS: `${url}/state/lock`,
    TF_HTTP_USERNAME: recorder.username,
    TF_HTTP_PASSWORD: recorder.password,
  };
}

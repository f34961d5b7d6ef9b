import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';

const header = (request: IncomingMessage, name: string) => String(request.headers[name] ?? '');

/**
 * Answers an HTTP request for the git repositories under `root` through git's own CGI program
 * (`git http-backend`), read-only: what serve-git.ts serves, and the tests' git server behind its
 * token check.
 */
export function gitHttpBackend(root: string): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const backend = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: request.method ?? 'GET',
        CONTENT_TYPE: header(request, 'content-type'),
        HTTP_CONTENT_ENCODING: header(request, 'content-encoding'),
        // Protocol version 2, which lets a later step of a job fetch the very commit its first step ran.
        GIT_PROTOCOL: header(request, 'git-protocol'),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    request.pipe(backend.stdin);
    // A CGI program answers with header lines, a blank line, then the body.
    let head = Buffer.alloc(0);
    const readHead = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      backend.stdout.off('data', readHead);
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      response.writeHead(status, headers);
      response.write(head.subarray(end + 4));
      backend.stdout.pipe(response);
    };
    backend.stdout.on('data', readHead);
    backend.on('close', () => {
      if (!response.headersSent) response.writeHead(502).end();
    });
  };
}

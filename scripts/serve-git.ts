/**
 * Serves the git repositories under a folder over HTTP on loopback, read-only, through git's own
 * CGI program (`git http-backend`), for trying runs and the registry without a git host:
 *
 *   node --import tsx scripts/serve-git.ts FOLDER [PORT]
 *
 * prints its address (`http://127.0.0.1:PORT`, a free port when none is given) once it listens;
 * FOLDER/network is then cloned as http://127.0.0.1:PORT/network. Anyone on this machine can read
 * every repository under FOLDER while it runs; it never accepts a push.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const [folder, port = '0'] = process.argv.slice(2);
if (folder === undefined) {
  console.error('usage: node --import tsx scripts/serve-git.ts FOLDER [PORT]');
  process.exit(2);
}
const root = path.resolve(folder);

const header = (request: IncomingMessage, name: string) => String(request.headers[name] ?? '');

function serve(request: IncomingMessage, response: ServerResponse): void {
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
}

const server = createServer(serve);
server.listen(Number(port), '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});

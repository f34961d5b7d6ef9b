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
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gitHttpBackend } from './git-http-backend.ts';

const [folder, port = '0'] = process.argv.slice(2);
if (folder === undefined) {
  console.error('usage: node --import tsx scripts/serve-git.ts FOLDER [PORT]');
  process.exit(2);
}
const root = path.resolve(folder);

const server = createServer(gitHttpBackend(root));
server.listen(Number(port), '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});

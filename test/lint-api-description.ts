import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run lint`'s check of the API description: starts a server from the sources on an embedded
 * store of its own (no build, no network: the version lists are served from the shipped copies),
 * saves the document it serves, and runs Redocly CLI on it with the rules of redocly.yaml.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-lint-'));
const server = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src', 'server.ts')], {
  cwd: root,
  env: {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: '',
    STRATUM_DATA_DIR: folder,
    STRATUM_LOG_LEVEL: 'info',
    STRATUM_TERRAFORM_RELEASES_URL: 'none',
    STRATUM_TOFU_RELEASES_URL: 'none',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let status = 1;
try {
  const address = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    server.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const found = /"address":"([^"]+)"/.exec(buffered)?.[1];
      if (found !== undefined) resolve(found);
    });
    server.once('exit', (code) => reject(new Error(`the server exited with ${String(code)} before it listened`)));
  });
  const document = path.join(folder, 'openapi.json');
  fs.writeFileSync(document, await (await fetch(`${address}/api/openapi.json`)).text());
  const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
  const lint = spawnSync(process.execPath, [cli, 'lint', document, '--config', path.join(root, 'redocly.yaml'), '--format', 'stylish'], {
    cwd: root,
    // Redocly CLI sends usage data and looks for a newer version unless told not to.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    stdio: 'inherit',
  });
  status = lint.status ?? 1;
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  fs.rmSync(folder, { recursive: true, force: true });
}
process.exitCode = status;

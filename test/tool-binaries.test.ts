import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolBinaries, ToolProblem, type ToolBinarySettings } from '../src/runs/tool-binaries.ts';

/** A release archive as both tools ship it: the binary at the top of a zip (made by git, which every machine here has). */
function releaseZip(tool: string, version: string): Buffer {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-release-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: folder,
      env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
    });
  git('init', '-q');
  fs.writeFileSync(path.join(folder, tool), `#!/bin/sh\necho "${tool} v${version}"\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(folder, 'LICENSE.txt'), 'license\n');
  git('add', '.');
  git('commit', '-qm', 'release');
  const zip = git('archive', '--format=zip', 'HEAD');
  fs.rmSync(folder, { recursive: true });
  return zip;
}

const sha256 = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('hex');

describe('tool binaries', () => {
  const files = new Map<string, Buffer>();
  const requests: string[] = [];
  let server: http.Server;
  let base: string;
  let directory: string;

  before(async () => {
    server = http.createServer((request, response) => {
      const url = String(request.url);
      requests.push(url);
      if (url.startsWith('/redirect/')) {
        response.writeHead(302, { location: url.slice('/redirect'.length) }).end();
        return;
      }
      const body = files.get(url);
      if (body === undefined) response.writeHead(404).end();
      else response.writeHead(200).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const terraform = releaseZip('terraform', '1.5.7');
    files.set('/terraform/1.5.7/terraform_1.5.7_linux_amd64.zip', terraform);
    files.set(
      '/terraform/1.5.7/terraform_1.5.7_SHA256SUMS',
      Buffer.from(`${sha256(terraform)}  terraform_1.5.7_linux_amd64.zip\n${'0'.repeat(64)}  terraform_1.5.7_darwin_arm64.zip\n`),
    );
    const tampered = releaseZip('terraform', '1.6.0');
    files.set('/terraform/1.6.0/terraform_1.6.0_linux_amd64.zip', tampered);
    files.set('/terraform/1.6.0/terraform_1.6.0_SHA256SUMS', Buffer.from(`${'1'.repeat(64)}  terraform_1.6.0_linux_amd64.zip\n`));
    const build = (version: string) => ({
      version,
      shasums: `terraform_${version}_SHA256SUMS`,
      builds: [
        { os: 'darwin', arch: 'arm64', url: `${base}/terraform/${version}/terraform_${version}_darwin_arm64.zip` },
        { os: 'linux', arch: 'amd64', url: `${base}/terraform/${version}/terraform_${version}_linux_amd64.zip` },
      ],
    });
    files.set(
      '/terraform/index.json',
      Buffer.from(JSON.stringify({ name: 'terraform', versions: { '1.5.7': build('1.5.7'), '1.6.0': build('1.6.0') } })),
    );

    const tofu = releaseZip('tofu', '1.8.0');
    files.set('/tofu/v1.8.0/tofu_1.8.0_linux_amd64.zip', tofu);
    files.set('/tofu/v1.8.0/tofu_1.8.0_SHA256SUMS', Buffer.from(`${sha256(tofu)}  tofu_1.8.0_linux_amd64.zip\n`));
    files.set(
      '/tofu/releases.json',
      Buffer.from(
        JSON.stringify([
          {
            tag_name: 'v1.8.0',
            // GitHub answers asset downloads with a redirect to its storage.
            assets: [
              { name: 'tofu_1.8.0_linux_amd64.zip', browser_download_url: `${base}/redirect/tofu/v1.8.0/tofu_1.8.0_linux_amd64.zip` },
              { name: 'tofu_1.8.0_SHA256SUMS', browser_download_url: `${base}/tofu/v1.8.0/tofu_1.8.0_SHA256SUMS` },
            ],
          },
        ]),
      ),
    );
  });

  after(() => {
    server.close();
  });

  const binaries = (overrides: Partial<ToolBinarySettings> = {}) => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-binaries-'));
    return new ToolBinaries({
      directory,
      releases: { terraform: `${base}/terraform/index.json`, tofu: `${base}/tofu/releases.json` },
      timeoutMs: 5000,
      maxBytes: 1024 * 1024,
      platform: { os: 'linux', arch: 'amd64' },
      ...overrides,
    });
  };

  it('downloads a missing version once, checked against its SHA256SUMS, and runs it from the directory', async () => {
    const tools = binaries();
    requests.length = 0;
    const [first, second] = await Promise.all([tools.locate('terraform', '1.5.7'), tools.locate('terraform', '1.5.7')]);
    assert.equal(first, path.join(directory, 'terraform', '1.5.7', 'terraform'));
    assert.equal(second, first);
    assert.equal(execFileSync(first).toString(), 'terraform v1.5.7\n');
    assert.equal(requests.filter((url) => url.endsWith('.zip')).length, 1, requests.join(', '));
    requests.length = 0;
    assert.equal(await tools.locate('terraform', '1.5.7'), first);
    assert.deepEqual(requests, [], 'a version in the directory needs no download');
    assert.deepEqual(fs.readdirSync(path.dirname(first)), ['terraform'], 'nothing partial is left beside it');
  });

  it("takes OpenTofu from GitHub's list of releases, following the download's redirect", async () => {
    const tofu = await binaries().locate('tofu', '1.8.0');
    assert.equal(execFileSync(tofu).toString(), 'tofu v1.8.0\n');
  });

  it('runs a version an operator put in the directory, with downloads off', async () => {
    const tools = binaries({ releases: { terraform: undefined, tofu: undefined } });
    const placed = path.join(directory, 'terraform', '0.13.7', 'terraform');
    fs.mkdirSync(path.dirname(placed), { recursive: true });
    fs.writeFileSync(placed, '#!/bin/sh\necho placed\n', { mode: 0o755 });
    assert.equal(await tools.locate('terraform', '0.13.7'), placed);
    await assert.rejects(tools.locate('terraform', '1.5.7'), (error: Error) => {
      assert.ok(error instanceof ToolProblem);
      assert.match(error.message, /downloads are off: install it there/);
      return true;
    });
  });

  it('refuses an archive that does not match its checksum, and leaves nothing to run', async () => {
    const tools = binaries();
    await assert.rejects(tools.locate('terraform', '1.6.0'), /does not match its SHA256SUMS/);
    assert.equal(fs.existsSync(path.join(directory, 'terraform', '1.6.0', 'terraform')), false);
  });

  it('says why when a version or a build does not exist, is too large, or is not a version', async () => {
    const tools = binaries();
    await assert.rejects(tools.locate('terraform', '9.9.9'), /has no linux\/amd64 build of 9\.9\.9/);
    await assert.rejects(binaries({ platform: { os: 'linux', arch: 'riscv64' } }).locate('tofu', '1.8.0'), /no linux\/riscv64 build/);
    await assert.rejects(binaries({ maxBytes: 100 }).locate('terraform', '1.5.7'), /larger than 100 bytes/);
    for (const version of ['../../etc', '1.5', 'latest', '1.5.7/../../x', '']) {
      await assert.rejects(tools.locate('terraform', version), /is not a terraform version/);
    }
    await assert.rejects(
      binaries({ releases: { terraform: `${base}/missing.json`, tofu: undefined } }).locate('terraform', '1.5.7'),
      /answered 404/,
    );
  });
});

/**
 * A run's workspace source: a branch of a real repository, served over HTTP on loopback behind a
 * token, checked out one commit deep with no trace of the token left behind.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { allowGitDestinations, checkout, GitFailure, type GitRemote } from '../src/git/index.ts';
import { Destinations } from '../src/outbound/destinations.ts';
import { GitServer } from './git-server.ts';

const token = 'ghp_checkout-token-0123456789';
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-checkout-'));
let git: GitServer;
let remote: GitRemote;

before(async () => {
  // The server listens on loopback, which git reaches only when listed (as STRATUM_OUTBOUND_ALLOW does).
  allowGitDestinations(new Destinations(['127.0.0.1']));
  git = await GitServer.start(token);
  remote = {
    url: git.repository('infrastructure', [
      { files: { 'main.tf': 'resource "terraform_data" "main" {}\n', 'env/prod/main.tf': '# prod\n' }, tags: [] },
    ]),
    credential: { kind: 'token', username: 'x-access-token', token },
  };
  git.commit('infrastructure', 'feature/next', { 'main.tf': 'resource "terraform_data" "next" {}\n' });
});
after(async () => {
  await git.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** Every file under a folder, with its text. */
function everything(folder: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const entry of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const file = path.join(entry.parentPath, entry.name);
      found.set(path.relative(folder, file), fs.readFileSync(file, 'latin1'));
    }
  }
  return found;
}

describe('workspace source checkout', () => {
  it('checks out a branch one commit deep and answers its commit, leaving no credential in the folder', async () => {
    const folder = path.join(scratch, 'main');
    const commit = await checkout(remote, 'main', folder);
    assert.match(commit, /^[0-9a-f]{40}$/);
    assert.equal(fs.readFileSync(path.join(folder, 'main.tf'), 'utf8'), 'resource "terraform_data" "main" {}\n');
    assert.equal(fs.readFileSync(path.join(folder, 'env/prod/main.tf'), 'utf8'), '# prod\n');
    assert.equal(execFileSync('git', ['rev-list', '--count', 'HEAD'], { cwd: folder }).toString().trim(), '1');
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    for (const [file, text] of everything(folder)) {
      assert.ok(!text.includes(token) && !text.includes(basic), `${file} holds the credential`);
    }
  });

  it('checks out another branch, whose name has a slash', async () => {
    const folder = path.join(scratch, 'next');
    const commit = await checkout(remote, 'feature/next', folder);
    assert.equal(fs.readFileSync(path.join(folder, 'main.tf'), 'utf8'), 'resource "terraform_data" "next" {}\n');
    assert.equal(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: folder }).toString().trim(), commit);
  });

  it('refuses names that are no branch, a missing branch, a wrong token and a folder in use, with words that hold no token', async () => {
    for (const ref of ['--upload-pack=touch /tmp/x', '../main', 'main branch', 'a..b', '']) {
      await assert.rejects(checkout(remote, ref, path.join(scratch, 'refused')), (error: unknown) => {
        assert.ok(error instanceof GitFailure);
        assert.match(error.message, /branch/);
        return true;
      });
    }
    await assert.rejects(checkout(remote, 'nowhere', path.join(scratch, 'missing')), (error: unknown) => {
      assert.ok(error instanceof GitFailure && error.remote);
      assert.match(error.message, /nowhere/);
      assert.ok(!error.message.includes(token));
      return true;
    });
    const refused = git.refused;
    const wrong: GitRemote = { ...remote, credential: { kind: 'token', username: 'x', token: 'wrong-token' } };
    await assert.rejects(checkout(wrong, 'main', path.join(scratch, 'wrong')), (error: unknown) => {
      assert.ok(error instanceof GitFailure && !error.message.includes('wrong-token'));
      return true;
    });
    assert.ok(git.refused > refused);
    const used = path.join(scratch, 'used');
    fs.mkdirSync(used);
    fs.writeFileSync(path.join(used, 'left'), 'x');
    await assert.rejects(checkout(remote, 'main', used), /not empty/);
  });

  it('reaches only the hosts the outbound policy allows, as notifications do, naming why it refused', async () => {
    const port = new URL(remote.url).port;
    try {
      allowGitDestinations(new Destinations([]));
      await assert.rejects(checkout(remote, 'main', path.join(scratch, 'unlisted')), (error: unknown) => {
        assert.ok(error instanceof GitFailure && !error.remote);
        assert.match(
          error.message,
          /^The source's host 127\.0\.0\.1 is refused: 127\.0\.0\.1: it is a loopback or private address that STRATUM_OUTBOUND_ALLOW does not list\.$/,
        );
        return true;
      });
      // A name is checked by the addresses it resolves to.
      const byName = { ...remote, url: remote.url.replace('127.0.0.1', 'localhost') };
      await assert.rejects(
        checkout(byName, 'main', path.join(scratch, 'by-name')),
        /localhost is refused: .*STRATUM_OUTBOUND_ALLOW does not list/,
      );
      // Metadata and link-local addresses stay refused whatever the list says.
      allowGitDestinations(new Destinations(['0.0.0.0/0', '169.254.169.254']));
      const metadata = { url: `http://169.254.169.254:${port}/latest.git`, credential: undefined };
      await assert.rejects(checkout(metadata, 'main', path.join(scratch, 'metadata')), /169\.254\.169\.254 is refused/);
      // A listed name is reached at the address it was checked at.
      allowGitDestinations(new Destinations(['localhost']));
      assert.match(await checkout(byName, 'main', path.join(scratch, 'listed')), /^[0-9a-f]{40}$/);
    } finally {
      allowGitDestinations(new Destinations(['127.0.0.1']));
    }
  });
});

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gitHttpBackend } from '../scripts/git-http-backend.ts';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Real git repositories served over HTTP on loopback by git's own `http-backend`, behind a server
 * that may require a token (as HTTP basic authentication, as hosting vendors take one), so a test
 * proves the credentials were sent.
 */
export class GitServer {
  private constructor(
    private readonly root: string,
    private readonly server: Server,
    private readonly counts: { refused: number; held: number; gate?: Promise<void> },
  ) {}

  /** The requests waiting behind `hold`. */
  get held(): number {
    return this.counts.held;
  }

  /** Holds every request until the returned function is called: a repository slow to answer. */
  hold(): () => void {
    const opener: { open?: () => void } = {};
    this.counts.gate = new Promise<void>((resolve) => {
      opener.open = resolve;
    });
    return () => {
      this.counts.gate = undefined;
      opener.open?.();
    };
  }

  /** The times a request came without the token. */
  get refused(): number {
    return this.counts.refused;
  }

  /** Without a token, every request is served. */
  static async start(token?: string): Promise<GitServer> {
    const root = mkdtempSync(path.join(tmpdir(), 'stratum-test-git-'));
    const counts: { refused: number; held: number; gate?: Promise<void> } = { refused: 0, held: 0 };
    const backend = gitHttpBackend(root);
    const server = createServer((request, response) => {
      if (counts.gate === undefined) serve(request, response);
      else {
        counts.held += 1;
        void counts.gate.then(() => serve(request, response));
      }
    });
    const serve = (request: IncomingMessage, response: ServerResponse) => {
      const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      const password = basic === undefined ? undefined : Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':');
      if (token !== undefined && password !== token) {
        counts.refused += 1;
        response.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
        return;
      }
      backend(request, response);
    };
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new GitServer(root, server, counts);
  }

  /** Where a repository of this server lies on this machine: what an SSH server serves. */
  path(name: string): string {
    return path.join(this.root, `${name}.git`);
  }

  /** The address of a repository of this server. */
  url(name: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/${name}.git`;
  }

  /**
   * Makes a bare repository `name` from commits: each gives its files and the tags it gets.
   */
  repository(name: string, commits: { files: Record<string, string>; tags: string[] }[]): string {
    const work = mkdtempSync(path.join(tmpdir(), 'stratum-test-work-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], {
        cwd: work,
      });
    git('init', '--quiet');
    for (const commit of commits) {
      for (const [file, text] of Object.entries(commit.files)) {
        mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
        writeFileSync(path.join(work, file), text);
      }
      git('add', '--all');
      git('commit', '--quiet', '-m', 'change');
      for (const tag of commit.tags) git('tag', tag);
    }
    execFileSync('git', ['clone', '--quiet', '--bare', work, path.join(this.root, `${name}.git`)]);
    rmSync(work, { recursive: true, force: true });
    return this.url(name);
  }

  /** Adds a commit with `files` on `branch` (made from the default branch when new) of a repository made by `repository`. */
  commit(name: string, branch: string, files: Record<string, string>): void {
    const work = mkdtempSync(path.join(tmpdir(), 'stratum-test-work-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd: work });
    git('clone', '--quiet', path.join(this.root, `${name}.git`), '.');
    git('checkout', '--quiet', '-B', branch);
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
      writeFileSync(path.join(work, file), text);
    }
    git('add', '--all');
    git('commit', '--quiet', '-m', 'change');
    git('push', '--quiet', 'origin', branch);
    rmSync(work, { recursive: true, force: true });
  }

  /** Tags the newest commit of a repository made by `repository`. */
  tag(name: string, tag: string): void {
    execFileSync('git', ['--git-dir', path.join(this.root, `${name}.git`), 'tag', tag, 'HEAD']);
  }

  /** Moves a tag of a repository made by `repository` to a new commit on top of its newest, with the same files. */
  moveTag(name: string, tag: string): void {
    const gitDir = path.join(this.root, `${name}.git`);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '--git-dir', gitDir, ...args])
        .toString()
        .trim();
    const commit = git('commit-tree', 'HEAD^{tree}', '-p', 'HEAD', '-m', 'moved');
    git('update-ref', 'HEAD', commit);
    git('tag', '--force', tag, commit);
  }

  /** Deletes a repository, as a host does when it goes away. */
  remove(name: string): void {
    rmSync(path.join(this.root, `${name}.git`), { recursive: true, force: true });
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.root, { recursive: true, force: true });
  }
}

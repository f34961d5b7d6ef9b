import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { TokenSigner } from '../src/auth/tokens.ts';

/** The stores every test runs on; STRATUM_TEST_STORES=sqlite (or postgres) narrows a local run. */
export type StoreKind = 'sqlite' | 'postgres';
export const storeKinds: StoreKind[] = (process.env.STRATUM_TEST_STORES ?? 'sqlite,postgres')
  .split(',')
  .map((s) => s.trim())
  .filter((s): s is StoreKind => s === 'sqlite' || s === 'postgres');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const serverScript = path.join(root, 'dist', 'server.js');
export const cliScript = path.join(root, 'dist', 'cli.js');
const postgresBase = process.env.STRATUM_TEST_POSTGRES ?? `postgres://${os.userInfo().username}@127.0.0.1:5432/test`;

/** The PostgreSQL database the tests make theirs from, for a test that talks to PostgreSQL itself. */
export const postgresUrl = () => postgresBase;

export const adminGroup = 'STRATUM_ADMIN';

export interface Response {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is empty. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read response documents of every shape
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  /** A raw body sent as is, for malformed documents. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

/** A server process of the built service on its own store, and the means to talk to it. */
export class TestServer {
  url = '';
  readonly logs: string[] = [];
  private child: ChildProcess | undefined;
  /** Signs tokens with this server's key, for claims the harness has no shortcut for. */
  readonly signer: TokenSigner;
  readonly adminToken: string;

  private constructor(
    readonly kind: StoreKind,
    readonly env: Record<string, string>,
    private readonly cleanup: () => Promise<void>,
    adminToken: string,
    signer: TokenSigner,
  ) {
    this.adminToken = adminToken;
    this.signer = signer;
  }

  /** The server process's id, while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts a server on a new, empty store of the given kind. */
  static async start(kind: StoreKind, extraEnv: Record<string, string> = {}): Promise<TestServer> {
    const tokenKey = randomBytes(32).toString('base64url');
    const env: Record<string, string> = {
      PORT: '0',
      HOST: '127.0.0.1',
      STRATUM_TOKEN_KEY: tokenKey,
      STRATUM_LOG_LEVEL: 'info',
      // PostgreSQL requires an encryption key; the embedded store generates its own.
      ...(kind === 'postgres' ? { STRATUM_ENCRYPTION_KEY: randomBytes(32).toString('base64') } : {}),
      // No test reaches the vendors' release indexes: a local port where nothing listens stands for them.
      STRATUM_TERRAFORM_RELEASES_URL: 'http://127.0.0.1:9/terraform/index.json',
      STRATUM_TOFU_RELEASES_URL: 'http://127.0.0.1:9/tofu/releases',
      // Tests pause their event loop while a console command runs (spawnSync, up to 30 s): a server
      // that closed the idle connection meanwhile would meet the next request on it before the
      // test process has seen the close. Idle connections outlive any such pause.
      STRATUM_KEEP_ALIVE_TIMEOUT_MS: '45000',
      // Jobs stay as their tests make them: only the suites about runs start an executor (STRATUM_EXECUTOR=on).
      STRATUM_EXECUTOR: 'off',
      // The tests' git servers (and notification receivers) listen on loopback, which git and
      // deliveries reach only when listed; a suite about the policy itself says otherwise.
      STRATUM_OUTBOUND_ALLOW: '127.0.0.1',
      // Suites send thousands of requests a minute with one token: the limits are the rate-limit suite's subject.
      STRATUM_RATE_LIMIT_READS: '10000000',
      STRATUM_RATE_LIMIT_WRITES: '10000000',
      ...extraEnv,
    };
    let cleanup: () => Promise<void>;
    if (extraEnv.STRATUM_DATA_DIR !== undefined || extraEnv.DATABASE_URL !== undefined) {
      // Another server's store: that server owns it and cleans it up.
      if (env.STRATUM_DATA_DIR === undefined) env.STRATUM_DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-test-'));
      cleanup = () => Promise.resolve();
    } else if (kind === 'sqlite') {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-test-'));
      env.STRATUM_DATA_DIR = dataDir;
      cleanup = () => fs.promises.rm(dataDir, { recursive: true, force: true });
    } else {
      const database = await createDatabase();
      env.DATABASE_URL = database.url;
      env.STRATUM_DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-test-pg-'));
      cleanup = async () => {
        await database.drop();
        fs.rmSync(env.STRATUM_DATA_DIR ?? '', { recursive: true, force: true });
      };
    }
    const signer = new TokenSigner(tokenKey, env.STRATUM_ADMIN_GROUP ?? adminGroup);
    const { token } = await signer.sign({
      subject: 'admin@example.com',
      email: 'admin@example.com',
      groups: [adminGroup],
      ttlSeconds: 3600,
    });
    const server = new TestServer(kind, env, cleanup, token, signer);
    await server.spawn();
    return server;
  }

  /** Starts the server process on this server's store; resolves once it listens. */
  async spawn(): Promise<void> {
    const child = spawn(process.execPath, [serverScript], {
      env: { ...process.env, ...this.env, DATABASE_URL: this.env.DATABASE_URL ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const stderr: string[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    this.url = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`server did not start: ${stderr.join('')}`));
      }, 20000);
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          this.logs.push(line);
          const address = /"address":"([^"]+)"/.exec(line)?.[1];
          if (address !== undefined) {
            clearTimeout(timer);
            // Logs go to stdout as JSON; anything on stderr at start is a warning nobody would read.
            if (stderr.length === 0) resolve(address);
            else {
              child.kill('SIGKILL');
              reject(new Error(`the server wrote to stderr while starting: ${stderr.join('')}`));
            }
          }
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`server exited with ${String(code)}: ${stderr.join('')}`));
      });
    });
  }

  /** A token signed with this server's key, valid for an hour unless `ttlSeconds` says otherwise (null: it never expires). */
  async token(claims: { subject?: string; email?: string; groups?: string[]; ttlSeconds?: number | null } = {}): Promise<string> {
    const subject = claims.subject ?? `user-${randomUUID()}@example.com`;
    const { token } = await this.signer.sign({
      subject,
      email: claims.email ?? subject,
      groups: claims.groups ?? [],
      ttlSeconds: claims.ttlSeconds === null ? undefined : (claims.ttlSeconds ?? 3600),
    });
    return token;
  }

  async request(method: string, urlPath: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? this.adminToken : options.token;
    if (token !== null && headers.authorization === undefined) headers.authorization = `Bearer ${token}`;
    let body: string | Buffer | undefined = options.raw;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/vnd.api+json';
    const response = await fetch(`${this.url}${urlPath}`, { method, headers, body: body ?? null });
    const text = await response.text();
    let parsed: unknown;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  }

  get = (urlPath: string, options?: RequestOptions) => this.request('GET', urlPath, options);
  post = (urlPath: string, body: unknown, options?: RequestOptions) => this.request('POST', urlPath, { ...options, body });
  patch = (urlPath: string, body: unknown, options?: RequestOptions) => this.request('PATCH', urlPath, { ...options, body });
  delete = (urlPath: string, options?: RequestOptions) => this.request('DELETE', urlPath, options);

  /**
   * Runs a read-only SQL query straight on this server's database, beside the running server (SQLite
   * in WAL mode lets a reader in): for checks the API cannot make, like orphan rows.
   */
  async query(text: string, parameters: unknown[] = []): Promise<Record<string, unknown>[]> {
    if (this.kind === 'sqlite') {
      const db = new Sqlite(path.join(this.env.STRATUM_DATA_DIR ?? '', 'stratum.db'), { readonly: true });
      try {
        return db.prepare(text.replace(/\$\d+/g, '?')).all(...parameters) as Record<string, unknown>[];
      } finally {
        db.close();
      }
    }
    const client = new pg.Client({ connectionString: this.env.DATABASE_URL });
    await client.connect();
    try {
      return (await client.query(text, parameters)).rows as Record<string, unknown>[];
    } finally {
      await client.end();
    }
  }

  /**
   * Changes rows straight in this server's database, for states the API cannot reach in a test's
   * time, like a token past its expiry. Returns how many rows changed.
   */
  async execute(text: string, parameters: unknown[] = []): Promise<number> {
    if (this.kind === 'sqlite') {
      const db = new Sqlite(path.join(this.env.STRATUM_DATA_DIR ?? '', 'stratum.db'));
      try {
        db.pragma('busy_timeout = 5000');
        return db.prepare(text.replace(/\$\d+/g, '?')).run(...parameters).changes;
      } finally {
        db.close();
      }
    }
    const client = new pg.Client({ connectionString: this.env.DATABASE_URL });
    await client.connect();
    try {
      return (await client.query(text, parameters)).rowCount ?? 0;
    } finally {
      await client.end();
    }
  }

  /** How many rows of a table hold `value` in `column`. */
  async countRows(table: string, column: string, value: string): Promise<number> {
    const [row] = await this.query(`select count(*) as n from "${table}" where "${column}" = $1`, [value]);
    return Number(row?.n);
  }

  /** Stops the process with SIGKILL, as a crash would. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  async stop(): Promise<void> {
    await this.signal('SIGTERM');
    await this.cleanup();
  }

  /** Stops the process with SIGTERM, as a process manager does, keeping its store; answers its exit code. */
  async terminate(): Promise<number | null> {
    return this.signal('SIGTERM');
  }

  private async signal(signal: NodeJS.Signals): Promise<number | null> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    return new Promise<number | null>((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.kill(signal);
    });
  }
}

export type Environment = Record<string, string>;

export interface StoreContext {
  readonly kind: StoreKind;
  /** The suite's server: started by the suite's first `before` hook, stopped by its first `after` hook. */
  readonly server: TestServer;
}

export interface StoreSuiteOptions {
  /**
   * Extra environment for `TestServer.start`. A function is called in `before`, just before the
   * server starts, for environment that names something the suite has to start first.
   */
  env?: Environment | ((kind: StoreKind) => Environment | Promise<Environment>);
}

/**
 * Declares a suite titled `title (kind)` for each store in `storeKinds`, around a server of its own.
 * The server's hooks are registered before `body` runs, so the body's own `before` hooks find the
 * server started, and its `after` hooks run once the server has stopped.
 */
export function describeEachStore(title: string, body: (context: StoreContext) => void): void;
export function describeEachStore(title: string, options: StoreSuiteOptions, body: (context: StoreContext) => void): void;
export function describeEachStore(
  title: string,
  optionsOrBody: StoreSuiteOptions | ((context: StoreContext) => void),
  maybeBody?: (context: StoreContext) => void,
): void {
  const options = typeof optionsOrBody === 'function' ? {} : optionsOrBody;
  const body = typeof optionsOrBody === 'function' ? optionsOrBody : maybeBody;
  if (body === undefined) throw new Error(`describeEachStore('${title}') has no body`);
  for (const kind of storeKinds) {
    describe(`${title} (${kind})`, () => {
      let server: TestServer | undefined;
      before(async () => {
        const env = typeof options.env === 'function' ? await options.env(kind) : (options.env ?? {});
        server = await TestServer.start(kind, env);
      });
      after(async () => {
        await server?.stop();
      });
      body({
        kind,
        get server(): TestServer {
          // Tests are declared before any hook runs, so a server read at declaration time does not exist yet.
          if (server === undefined) throw new Error(`the ${kind} server of '${title}' was read before its before() hook started it`);
          return server;
        },
      });
    });
  }
}

/**
 * Retries `check` until it returns without throwing, and returns what it returned. Waiting for what
 * can be observed, rather than sleeping for a time tied to the server's internals, keeps tests fast
 * and honest: past the deadline the last failure is reported, so a condition that never comes fails
 * the test instead of hanging it, and one that comes late fails instead of passing by luck.
 */
export async function eventually<T>(
  what: string,
  check: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() >= deadline) {
        const last = error instanceof Error ? error.message : String(error);
        throw new Error(`waited ${timeoutMs} ms for ${what}; the last check failed: ${last}`, { cause: error });
      }
    }
    // One last check falls on the deadline itself, however long the earlier checks took.
    await sleep(Math.max(0, Math.min(options.intervalMs ?? 25, deadline - Date.now())));
  }
}

/** A PostgreSQL database of its own for one server, so test files can run in parallel. */
export async function createDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `stratum_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresBase });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgresBase);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: postgresBase });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Where a server started with STRATUM_METRICS_PORT serves its metrics, from its "metrics listening" line. */
export function metricsUrl(server: TestServer): string {
  const line = server.logs.map((text) => JSON.parse(text) as Record<string, unknown>).find((l) => l.msg === 'metrics listening');
  assert.ok(line !== undefined, 'no "metrics listening" line');
  return String(line.metrics);
}

/** Runs `stratum token ...` with a server's configuration and returns the last line it printed. */
export function mint(env: Record<string, string>, args: string[]): { status: number | null; token: string; stderr: string } {
  const result = spawnSync(process.execPath, [cliScript, 'token', ...args], {
    env: { ...process.env, ...env, DATABASE_URL: env.DATABASE_URL ?? '' },
    encoding: 'utf8',
    timeout: 30000,
  });
  const lines = result.stdout.trim().split('\n');
  return { status: result.status, token: lines.at(-1) ?? '', stderr: result.stderr };
}

/** Asserts a JSON:API error document of the given status, and the pointer of its first error when given. */
export function assertError(response: Response, status: number, pointer?: string): { detail: string; source?: { pointer?: string } }[] {
  assert.equal(response.status, status, response.text);
  assert.equal(response.headers.get('content-type'), 'application/vnd.api+json');
  const errors = response.body.errors as { detail: string; source?: { pointer?: string } }[];
  if (pointer !== undefined) assert.equal(errors[0]?.source?.pointer, pointer, response.text);
  return errors;
}

/**
 * How long a server may go on accepting a token after its record changed elsewhere (revoked by
 * another server, or expired): the spec allows 1 second; the margin covers the checking requests.
 */
export const staleTokenBoundMs = 1000 + 250;

/** Asserts a 401 that names the token as invalid in WWW-Authenticate, for the given reason. */
export function assertRefused(response: Response, reason: RegExp): void {
  assertError(response, 401);
  const challenge = response.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer error="invalid_token"/);
  assert.match(challenge, reason);
}

/**
 * The SQL statements the server ran for one request (`send`), from its statement log: the server
 * must run with STRATUM_LOG_LEVEL=trace, which logs each statement once it has run. `path` is the
 * path the request log line names, marking where the request's lines end.
 */
export async function statementsOf<T>(
  server: TestServer,
  path: string,
  send: () => Promise<T>,
): Promise<{ statements: string[]; answer: T }> {
  // Log lines are written off the request path: the lines of earlier requests are all in once a
  // health check (which runs no statement of the engine) has logged its own.
  const start = await loggedAfter(server, server.logs.length, '"path":"/healthz"', () => server.get('/healthz'));
  let answer: { value: T } | undefined;
  const end = await loggedAfter(server, start, `"path":${JSON.stringify(path)}`, async () => {
    answer = { value: await send() };
  });
  if (answer === undefined) throw new Error('no answer');
  return { statements: server.logs.slice(start, end).filter((line) => line.includes('"msg":"statement"')), answer: answer.value };
}

/** Sends a request, and returns the index of its request log line (the last line it logs). */
async function loggedAfter(server: TestServer, from: number, marker: string, send: () => Promise<unknown>): Promise<number> {
  await send();
  return eventually(`the log line ${marker}`, () => {
    const index = server.logs.findIndex((line, i) => i >= from && line.includes(marker));
    if (index < 0) throw new Error('not logged yet');
    return index;
  });
}

/** Body of a create or update document. */
export function resourceDocument(type: string, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { data: { type, attributes, ...extra } };
}

/** Creates an organization as an administrator and returns its id. */
export async function createOrganization(server: TestServer, attributes: Record<string, unknown> = {}): Promise<string> {
  const response = await server.post(
    '/api/v1/organization',
    resourceDocument('organization', { name: `org-${randomUUID()}`, ...attributes }),
  );
  if (response.status !== 201) throw new Error(`creating an organization answered ${response.status}: ${response.text}`);
  return response.body.data.id as string;
}

/** Creates a template in an organization and returns its id. */
export async function createTemplate(
  server: TestServer,
  organizationId: string,
  attributes: Record<string, unknown> = {},
): Promise<string> {
  const response = await server.post(
    `/api/v1/organization/${organizationId}/template`,
    resourceDocument('template', { name: `template-${randomUUID()}`, tcl: Buffer.from('flow: []\n').toString('base64'), ...attributes }),
  );
  if (response.status !== 201) throw new Error(`creating a template answered ${response.status}: ${response.text}`);
  return response.body.data.id as string;
}

/** Creates a record under `collectionPath` as an administrator and returns its id. */
export async function createRecord(
  server: TestServer,
  collectionPath: string,
  type: string,
  attributes: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const response = await server.post(collectionPath, resourceDocument(type, attributes, extra));
  if (response.status !== 201) throw new Error(`creating a ${type} answered ${response.status}: ${response.text}`);
  return response.body.data.id as string;
}

/** A provider build, as the web UI's Add Implementation form sends one. */
export const providerBuild = {
  os: 'linux',
  arch: 'amd64',
  filename: 'p.zip',
  downloadUrl: 'https://files.example/p.zip',
  shasumsUrl: 'https://files.example/SHA256SUMS',
  shasumsSignatureUrl: 'https://files.example/SHA256SUMS.sig',
  shasum: 'a'.repeat(64),
};

/**
 * Writes a workspace's first state as Terraform's http backend does (Basic auth with an
 * administrator's token), and returns the id of the history record the backend made of it.
 */
export async function writeFirstState(server: TestServer, organizationId: string, workspaceId: string): Promise<string> {
  const state = JSON.stringify({ version: 4, serial: 1, lineage: randomUUID(), outputs: {}, resources: [] });
  const written = await server.request('POST', `/tfstate/v1/organization/${organizationId}/workspace/${workspaceId}/state`, {
    token: null,
    raw: state,
    headers: {
      authorization: `Basic ${Buffer.from(`stratum:${server.adminToken}`).toString('base64')}`,
      'content-type': 'application/json',
    },
  });
  if (written.status !== 200) throw new Error(`writing a state answered ${written.status}: ${written.text}`);
  return String((await server.get(`/api/v1/workspace/${workspaceId}/history`)).body.data[0].id);
}

export const createWorkspace = (server: TestServer, organizationId: string, attributes: Record<string, unknown> = {}) =>
  createRecord(server, `/api/v1/organization/${organizationId}/workspace`, 'workspace', { name: `ws-${randomUUID()}`, ...attributes });

export const createCollection = (server: TestServer, organizationId: string, attributes: Record<string, unknown> = {}) =>
  createRecord(server, `/api/v1/organization/${organizationId}/collection`, 'collection', { name: `col-${randomUUID()}`, ...attributes });

export const createVcs = (server: TestServer, organizationId: string, attributes: Record<string, unknown> = {}) =>
  createRecord(server, `/api/v1/organization/${organizationId}/vcs`, 'vcs', {
    name: `vcs-${randomUUID()}`,
    vcsType: 'GITHUB',
    ...attributes,
  });

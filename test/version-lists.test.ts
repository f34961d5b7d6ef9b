import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, it } from 'node:test';
import { describeEachStore, eventually, serverScript, TestServer } from './harness.ts';

/** The versions Terrakube's web UI lists from each answer, as its workspace pages read them. */
function versionsTheUiLists(tool: 'terraform' | 'tofu', document: unknown): string[] {
  if (tool === 'tofu') return (document as { tag_name: string }[]).map((release) => release.tag_name.replace('v', ''));
  return Object.keys((document as { versions: Record<string, unknown> }).versions);
}

async function timed(server: TestServer, path: string, token?: string | null) {
  const started = Date.now();
  const response = await server.get(path, token === undefined ? {} : { token });
  return { response, ms: Date.now() - started };
}

describeEachStore('version lists with the vendors unreachable', (context) => {
  it('serves the lists shipped with the package at once, in the shapes the web UI reads, with or without a token', async () => {
    for (const tool of ['terraform', 'tofu'] as const) {
      for (const token of [null, 'not-a-token', undefined]) {
        const { response, ms } = await timed(context.server, `/${tool}/index.json`, token);
        assert.equal(response.status, 200, response.text);
        assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
        const versions = versionsTheUiLists(tool, response.body);
        assert.ok(versions.length >= 5, versions.join());
        assert.ok(
          versions.every((version) => /^\d+\.\d+\.\d+$/.test(version)),
          versions.join(),
        );
        // Nothing listens where the upstream should be: no wait beyond a refused connection.
        assert.ok(ms < 1500, `${tool} took ${ms} ms`);
      }
    }
  });
});

describeEachStore('version list settings', (context) => {
  it('serves only the shipped lists with the upstreams set to none', async () => {
    const server = await TestServer.start(context.kind, { STRATUM_TERRAFORM_RELEASES_URL: 'none', STRATUM_TOFU_RELEASES_URL: 'none' });
    try {
      const { response, ms } = await timed(server, '/terraform/index.json', null);
      assert.equal(response.status, 200);
      assert.ok(versionsTheUiLists('terraform', response.body).includes('1.9.8'));
      assert.ok(ms < 500, `took ${ms} ms`);
    } finally {
      await server.stop();
    }
  });

  it('refuses to start with an upstream that is not an http(s) URL, or a timeout out of range, naming each', () => {
    const result = spawnSync(process.execPath, [serverScript], {
      env: {
        ...process.env,
        ...context.server.env,
        DATABASE_URL: context.server.env.DATABASE_URL ?? '',
        STRATUM_TOFU_RELEASES_URL: 'ftp://mirror.example/tofu.json',
        STRATUM_RELEASES_TIMEOUT_MS: '5',
      },
      encoding: 'utf8',
      timeout: 15000,
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /STRATUM_TOFU_RELEASES_URL must be an http:\/\/ or https:\/\/ URL, or none/);
    assert.match(result.stderr, /STRATUM_RELEASES_TIMEOUT_MS must be an integer from 100 to 60000/);
  });
});

/** A stand-in for the vendors: what it answers for each tool, and how many times it was asked. */
class Upstream {
  readonly asked = { terraform: 0, tofu: 0 };
  answer: Record<'terraform' | 'tofu', 'hang' | 'error' | 'garbage' | string[]> = { terraform: ['9.1.0'], tofu: 'hang' };
  private readonly server = http.createServer((request, response) => {
    const tool = request.url?.startsWith('/tofu') === true ? 'tofu' : 'terraform';
    this.asked[tool]++;
    const answer = this.answer[tool];
    if (answer === 'hang') return;
    if (answer === 'error') {
      response.writeHead(503).end('unavailable');
      return;
    }
    const body =
      answer === 'garbage'
        ? { releases: 'none' }
        : tool === 'tofu'
          ? answer.map((version) => ({ tag_name: `v${version}`, prerelease: false }))
          : { name: 'terraform', versions: Object.fromEntries(answer.map((version) => [version, { name: 'terraform', version }])) };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const upstreams = new Map<string, Upstream>();
after(async () => {
  for (const upstream of upstreams.values()) await upstream.stop();
});

describeEachStore(
  'version lists from a configured upstream',
  {
    env: async (kind) => {
      const upstream = new Upstream();
      upstreams.set(kind, upstream);
      const url = await upstream.start();
      return {
        STRATUM_TERRAFORM_RELEASES_URL: `${url}/terraform/index.json`,
        STRATUM_TOFU_RELEASES_URL: `${url}/tofu/releases`,
        STRATUM_RELEASES_CACHE_SECONDS: '1',
        STRATUM_RELEASES_TIMEOUT_MS: '400',
      };
    },
  },
  (context) => {
    const upstream = () => upstreams.get(context.kind) as Upstream;
    const versions = async (tool: 'terraform' | 'tofu') => versionsTheUiLists(tool, (await context.server.get(`/${tool}/index.json`)).body);

    it("serves the upstream's list and keeps it for the cache time: two pages, one fetch", async () => {
      assert.deepEqual(await versions('terraform'), ['9.1.0']);
      assert.deepEqual(await versions('terraform'), ['9.1.0']);
      assert.equal(upstream().asked.terraform, 1);
    });

    it('serves the cached copy once it is stale while it fetches a fresh one, then the fresh one', async () => {
      upstream().answer.terraform = ['9.2.0', '9.1.0'];
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const { response, ms } = await timed(context.server, '/terraform/index.json');
      assert.deepEqual(versionsTheUiLists('terraform', response.body), ['9.1.0']);
      assert.ok(ms < 300, `the stale copy took ${ms} ms`);
      await eventually('the fresh list', async () => assert.deepEqual(await versions('terraform'), ['9.2.0', '9.1.0']));
      assert.equal(upstream().asked.terraform, 2);
    });

    it('keeps serving the last copy while the upstream fails or answers something else', async () => {
      for (const failure of ['error', 'garbage'] as const) {
        upstream().answer.terraform = failure;
        const asked = upstream().asked.terraform;
        await new Promise((resolve) => setTimeout(resolve, 1100));
        await versions('terraform');
        await eventually('a fetch', () => assert.ok(upstream().asked.terraform > asked));
        assert.deepEqual(await versions('terraform'), ['9.2.0', '9.1.0']);
      }
    });

    it('answers with the shipped list within the timeout when the upstream never answers, and does not wait again at once', async () => {
      const first = await timed(context.server, '/tofu/index.json');
      assert.equal(first.response.status, 200);
      assert.ok(first.ms < 1500, `the first page took ${first.ms} ms`);
      assert.ok(versionsTheUiLists('tofu', first.response.body).length >= 5);
      const second = await timed(context.server, '/tofu/index.json');
      assert.ok(second.ms < 300, `the second page took ${second.ms} ms`);
      assert.equal(upstream().asked.tofu, 1);
    });
  },
);

/** An upstream that moved: redirects within its host, and one to another host that must not be followed. */
class MovedUpstream {
  readonly otherHostAsked: string[] = [];
  private readonly server = http.createServer((request, response) => {
    if (request.url === '/terraform/index.json') {
      response.writeHead(302, { location: `${this.otherHost}/terraform/index.json` }).end();
    } else if (request.url === '/tofu/releases') {
      response.writeHead(301, { location: '/tofu/moved' }).end();
    } else {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([{ tag_name: 'v1.99.0' }]));
    }
  });
  // Another address of this machine stands for another host, inside the network the server runs in.
  private readonly other = http.createServer((request, response) => {
    this.otherHostAsked.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ versions: { '6.6.6': {} } }));
  });
  private otherHost = '';

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.other.listen(0, '127.0.0.2', resolve));
    this.otherHost = `http://127.0.0.2:${(this.other.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const server of [this.server, this.other]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }
}

const moved = new Map<string, MovedUpstream>();
after(async () => {
  for (const upstream of moved.values()) await upstream.stop();
});

describeEachStore(
  'version lists from an upstream that redirects',
  {
    env: async (kind) => {
      const upstream = new MovedUpstream();
      moved.set(kind, upstream);
      const url = await upstream.start();
      return { STRATUM_TERRAFORM_RELEASES_URL: `${url}/terraform/index.json`, STRATUM_TOFU_RELEASES_URL: `${url}/tofu/releases` };
    },
  },
  (context) => {
    it("follows a redirect within the upstream's host, and none to another host: the shipped list is served instead", async () => {
      const versions = async (tool: 'terraform' | 'tofu') =>
        versionsTheUiLists(tool, (await context.server.get(`/${tool}/index.json`)).body);
      assert.deepEqual(await versions('tofu'), ['1.99.0']);
      const terraform = await versions('terraform');
      assert.ok(!terraform.includes('6.6.6') && terraform.includes('1.9.8'), terraform.join());
      assert.deepEqual(moved.get(context.kind)?.otherHostAsked, []);
      await eventually('a warning naming the other host', () =>
        assert.ok(
          context.server.logs.some(
            (line) => line.includes('release index unavailable') && line.includes('redirected to another host, 127.0.0.2:'),
          ),
        ),
      );
    });
  },
);

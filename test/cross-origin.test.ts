import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import { stratum } from './cli-run.ts';
import { assertError, describeEachStore, TestServer, type Response } from './harness.ts';
import { rawRequest, requestHead } from './raw-http.ts';

const ui = 'https://ui.example.com';
const devUi = 'http://localhost:3000';
const stranger = 'https://evil.example.net';

/** Every kind of path the web UI calls across origins: JSON:API, the token endpoints, GraphQL, and the API docs page's document. */
const paths = ['/api/v1/organization', '/access-token/v1/teams', '/pat/v1', '/graphql/api/v1', '/doc'];

const preflight = (server: TestServer, path: string, origin: string, method = 'GET') =>
  server.request('OPTIONS', path, {
    token: null,
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' },
  });

function assertAllowed(response: Response, origin: string): void {
  assert.equal(response.headers.get('access-control-allow-origin'), origin, response.text);
  assert.equal(response.headers.get('access-control-allow-credentials'), 'true');
  assert.match(response.headers.get('vary') ?? '', /\bOrigin\b/i);
}

function assertNoCorsHeaders(response: Response): void {
  for (const [name] of response.headers) assert.doesNotMatch(name, /^access-control-/i, `${name} was sent`);
}

const crossOriginEnv = {
  STRATUM_CORS_ORIGINS: `${ui}, ${devUi}/`,
  // Short enough for a request whose body never comes to be answered 408 while the test waits.
  STRATUM_REQUEST_TIMEOUT_MS: '2000',
  STRATUM_HEADERS_TIMEOUT_MS: '2000',
};

describeEachStore('cross-origin requests from the configured origins', { env: crossOriginEnv }, (context) => {
  for (const path of paths) {
    it(`a preflight from an allowed origin to ${path} is answered 204 without a token, for the UI's methods and headers`, async () => {
      const response = await preflight(context.server, path, ui, 'POST');
      assert.equal(response.status, 204, response.text);
      assertAllowed(response, ui);
      const methods = (response.headers.get('access-control-allow-methods') ?? '').split(/,\s*/);
      for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) assert.ok(methods.includes(method), `${method} in ${methods.join(',')}`);
      const headers = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/);
      for (const header of ['authorization', 'content-type']) assert.ok(headers.includes(header), `${header} in ${headers.join(',')}`);
      assert.equal(response.headers.get('access-control-max-age'), '600');
      assert.equal(response.text, '');
    });

    it(`a preflight from an origin that is not configured to ${path} gets no CORS header`, async () => {
      const response = await preflight(context.server, path, stranger, 'POST');
      assertNoCorsHeaders(response);
      assertError(response, 405);
      assert.doesNotMatch(response.headers.get('allow') ?? '', /OPTIONS/);
    });
  }

  it('an origin given with a trailing slash in the setting is matched as browsers send it', async () => {
    assertAllowed(await preflight(context.server, '/api/v1/organization', devUi), devUi);
  });

  it('a read from an allowed origin carries Access-Control-Allow-Origin and exposes ETag, Location and X-Terraform-Get', async () => {
    const response = await context.server.get('/api/v1/organization', { headers: { origin: ui } });
    assert.equal(response.status, 200);
    assertAllowed(response, ui);
    // Both what the answer varies with: the origin, and Accept (which may make it a 406).
    assert.match(response.headers.get('vary') ?? '', /^(?=.*\bOrigin\b)(?=.*\bAccept\b)/i);
    const exposed = (response.headers.get('access-control-expose-headers') ?? '').toLowerCase();
    // X-Terraform-Get: where the web UI's module page finds a module version's zip.
    for (const header of ['etag', 'location', 'www-authenticate', 'x-terraform-get']) assert.match(exposed, new RegExp(`\\b${header}\\b`));
  });

  it("the API docs page's document answers an allowed origin with its header, token or not", async () => {
    for (const token of [null, context.server.adminToken]) {
      const response = await context.server.get('/doc', { token, headers: { origin: ui } });
      assert.equal(response.status, 200);
      assertAllowed(response, ui);
    }
  });

  it('a token endpoint and the GraphQL endpoint answer an allowed origin with its header', async () => {
    const tokens = await context.server.get('/access-token/v1/teams', { headers: { origin: ui } });
    assert.equal(tokens.status, 200);
    assertAllowed(tokens, ui);
    const graphql = await context.server.post(
      '/graphql/api/v1',
      { query: '{ organization { edges { node { id } } } }' },
      {
        headers: { origin: ui, 'content-type': 'application/json' },
      },
    );
    assert.equal(graphql.status, 200, graphql.text);
    assertAllowed(graphql, ui);
  });

  it('a 401 to an allowed origin carries the header too, so the page can read it and sign in again', async () => {
    const response = await context.server.get('/api/v1/organization', { token: null, headers: { origin: ui } });
    assertError(response, 401);
    assertAllowed(response, ui);
    const graphql = await context.server.post(
      '/graphql/api/v1',
      { query: '{ organization { edges { node { id } } } }' },
      {
        token: null,
        headers: { origin: ui, 'content-type': 'application/json' },
      },
    );
    assert.equal(graphql.status, 401);
    assertAllowed(graphql, ui);
  });

  it('a read from another origin is served without any CORS header, so the browser withholds it', async () => {
    const response = await context.server.get('/api/v1/organization', { headers: { origin: stranger } });
    assert.equal(response.status, 200);
    assertNoCorsHeaders(response);
    const graphql = await context.server.post(
      '/graphql/api/v1',
      { query: '{ organization { edges { node { id } } } }' },
      {
        headers: { origin: stranger, 'content-type': 'application/json' },
      },
    );
    assertNoCorsHeaders(graphql);
  });

  it('an error answered before routing carries the headers too: a malformed URL, headers over 16 KiB, a body that never comes', async () => {
    const malformed = '/api/v1/organization/%E0%A4%A';
    const badUrl = await context.server.get(malformed, { headers: { origin: ui } });
    assertError(badUrl, 400);
    assertAllowed(badUrl, ui);
    assertNoCorsHeaders(await context.server.get(malformed, { headers: { origin: stranger } }));

    const raw = async (head: string) => {
      const answer = await rawRequest(context.server.url, { head, waitMs: 6000 });
      const headers = new Headers(answer.headers);
      const response: Response = { status: answer.status ?? 0, headers, text: answer.text, body: answer.body };
      return response;
    };
    const oversized = (origin: string) =>
      requestHead('GET', '/api/v1/organization', { origin, authorization: `Bearer ${'a'.repeat(20 * 1024)}` });
    const tooLarge = await raw(oversized(ui));
    assert.equal(tooLarge.status, 431, tooLarge.text);
    assertAllowed(tooLarge, ui);
    assertNoCorsHeaders(await raw(oversized(stranger)));

    const unfinishedBody = requestHead('POST', '/api/v1/organization', {
      origin: ui,
      authorization: `Bearer ${context.server.adminToken}`,
      'content-type': 'application/vnd.api+json',
      'content-length': 100,
    });
    const late = await raw(`${unfinishedBody}{"data":`);
    assert.equal(late.status, 408, late.text);
    assertAllowed(late, ui);
  });

  it('a request without an Origin header (not from a browser) gets no CORS header', async () => {
    assertNoCorsHeaders(await context.server.get('/api/v1/organization'));
  });
});

describe('cross-origin requests without configured origins', () => {
  let server: TestServer | undefined;
  before(async () => {
    server = await TestServer.start('sqlite');
  });
  after(async () => {
    await server?.stop();
  });

  it('no origin is allowed by default: a preflight is a method the path does not answer, and reads carry no CORS header', async () => {
    if (server === undefined) throw new Error('no server');
    const response = await preflight(server, '/api/v1/organization', ui);
    assertError(response, 405);
    assert.equal(response.headers.get('allow'), 'GET, HEAD, POST');
    assertNoCorsHeaders(response);
    assertNoCorsHeaders(await server.get('/api/v1/organization', { headers: { origin: ui } }));
  });
});

describe('STRATUM_CORS_ORIGINS', () => {
  const problems = (value: string): string[] => {
    try {
      loadConfig({ STRATUM_CORS_ORIGINS: value });
      return [];
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
  };

  it('takes a comma-separated list of origins, as browsers write them', () => {
    const config = loadConfig({ STRATUM_CORS_ORIGINS: 'https://UI.example.com, http://localhost:3000/,https://ui.example.com:443' });
    assert.deepEqual(config.corsOrigins, ['https://ui.example.com', 'http://localhost:3000']);
    assert.deepEqual(loadConfig({}).corsOrigins, []);
  });

  for (const bad of [
    '*',
    'https://*.example.com',
    'https://ui.example.com, http://localhost:3000, https://*.example.com',
    'ui.example.com',
    'https://ui.example.com/app',
    'ftp://ui.example.com',
    'https://user@ui.example.com',
    'https://ui.example.com?x=1',
  ]) {
    it(`refuses ${JSON.stringify(bad)} at start, naming the setting`, () => {
      const found = problems(bad);
      assert.equal(found.length, 1, found.join('\n'));
      assert.match(found[0] ?? '', /^STRATUM_CORS_ORIGINS must/);
    });
  }

  it('stops `stratum serve` on a wildcard pattern, which no browser sends as its origin', () => {
    const started = stratum(['serve'], { STRATUM_CORS_ORIGINS: 'https://*.example.com', PORT: '0' });
    assert.equal(started.status, 1, started.stdout);
    assert.match(started.stderr, /STRATUM_CORS_ORIGINS must name each origin: "https:\/\/\*\.example\.com" is a pattern/);
  });
});

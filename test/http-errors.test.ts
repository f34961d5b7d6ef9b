import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { TokenSigner } from '../src/auth/tokens.ts';
import { createOrganization, describeEachStore, eventually, resourceDocument, serverScript, TestServer, type Response } from './harness.ts';

const jsonApi = 'application/vnd.api+json';

/**
 * Asserts that a response is a JSON:API error document of the given status, served as
 * application/vnd.api+json, that shows no stack trace, SQL or file path; returns its first error.
 */
function assertErrorDocument(response: Response, status: number) {
  assert.equal(response.status, status, response.text);
  assert.equal(response.headers.get('content-type'), jsonApi);
  assert.ok(response.body !== undefined, `not JSON: ${response.text}`);
  assert.deepEqual(Object.keys(response.body), ['errors']);
  assert.ok(Array.isArray(response.body.errors) && response.body.errors.length > 0);
  for (const error of response.body.errors) {
    assert.equal(error.status, String(status));
    assert.equal(typeof error.code, 'string');
    assert.ok(error.code !== '');
    assert.equal(typeof error.title, 'string');
    assert.ok(error.title !== '');
    assert.equal(typeof error.detail, 'string');
    assert.ok(error.detail !== '');
    for (const key of Object.keys(error))
      assert.ok(['status', 'code', 'title', 'detail', 'source'].includes(key), `unexpected member ${key}`);
    if (error.source !== undefined) {
      const keys = Object.keys(error.source);
      assert.equal(keys.length, 1);
      const [key] = keys;
      assert.ok(key === 'pointer' || key === 'parameter', `unexpected source ${JSON.stringify(error.source)}`);
      assert.equal(typeof error.source[key], 'string');
    }
  }
  assertNothingInternal(response.text);
  return response.body.errors[0];
}

/** No stack frame, SQL statement, database error or file path in a response text. */
function assertNothingInternal(text: string): void {
  assert.doesNotMatch(text, /\bat \S+ \(|\n\s+at |\\n\s+at /, 'a stack trace');
  assert.doesNotMatch(text, /\.(?:ts|js|mjs|cjs):\d+/, 'a source location');
  assert.doesNotMatch(text, /(?:^|[\s"'(])\/(?:work|home|tmp|usr|var|opt|root|src|dist|node_modules)\//, 'a file path');
  assert.doesNotMatch(text, /node_modules|[A-Z]:\\\\/, 'a file path');
  assert.doesNotMatch(text, /\b(?:select\s+\S.*\s+from|insert\s+into|update\s+\S+\s+set|delete\s+from)\b/i, 'SQL');
  assert.doesNotMatch(text, /SQLITE_|sqlite3|syntax error at|violates .* constraint|relation "/i, 'a database error');
}

/** A 401 as decisions.md sets it; `invalidToken` when a token was sent but not accepted. */
function assertUnauthorized(response: Response, invalidToken: boolean): void {
  assertErrorDocument(response, 401);
  const challenge = response.headers.get('www-authenticate');
  assert.ok(challenge !== null, 'a 401 carries WWW-Authenticate');
  assert.match(challenge, /^Bearer\b/);
  if (invalidToken) assert.match(challenge, /error="invalid_token"/);
}

/** The response never repeats the token, or its signature, in its body or headers. */
function assertNotEchoed(response: Response, token: string): void {
  const signature = token.split('.')[2] ?? '';
  const everything = [response.text, ...[...response.headers.entries()].map(([name, value]) => `${name}: ${value}`)].join('\n');
  assert.ok(!everything.includes(token), 'the response echoes the token');
  if (signature.length >= 8) assert.ok(!everything.includes(signature), 'the response echoes the token signature');
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An HS256 JWT built by hand, with exactly the claims given. */
function signHs256(key: string, payload: Record<string, unknown>): string {
  const unsigned = `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url(payload)}`;
  return `${unsigned}.${createHmac('sha256', Buffer.from(key, 'utf8')).update(unsigned).digest('base64url')}`;
}

const inOneHour = () => Math.floor(Date.now() / 1000) + 3600;

/** How many organizations of that name an administrator sees. */
async function countNamed(server: TestServer, name: string, token?: string): Promise<number> {
  const list = await server.get(`/api/v1/organization?filter[organization]=name==${name}`, token === undefined ? {} : { token });
  assert.equal(list.status, 200, list.text);
  return (list.body.data as unknown[]).length;
}

/** Runs the built server with a configuration it must refuse, on a data folder of its own. */
function startWithBadConfig(server: TestServer, overrides: Record<string, string>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-test-config-'));
  try {
    const started = Date.now();
    const result = spawnSync(process.execPath, [serverScript], {
      env: { ...process.env, ...server.env, DATABASE_URL: server.env.DATABASE_URL ?? '', STRATUM_DATA_DIR: dataDir, ...overrides },
      encoding: 'utf8',
      timeout: 15000,
    });
    return { ...result, ms: Date.now() - started };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

describeEachStore('HTTP errors, media types and authentication', (context) => {
  it('every kind of error answer is a JSON:API error document with no stack, SQL or path in it', async (t) => {
    const id = await createOrganization(context.server, { name: `shape-${context.kind}` });
    const developer = await context.server.token({ groups: ['developers'] });
    const cases: [string, number, () => Promise<Response>][] = [
      ['malformed JSON', 400, () => context.server.request('POST', '/api/v1/organization', { raw: '{"data": {' })],
      [
        'unknown attribute',
        400,
        () => context.server.post('/api/v1/organization', resourceDocument('organization', { name: 'x', colour: 'red' })),
      ],
      ['unknown query parameter', 400, () => context.server.get('/api/v1/organization?bogus=1')],
      ['bad sort', 400, () => context.server.get('/api/v1/organization?sort=nothing')],
      ['bad filter', 400, () => context.server.get('/api/v1/organization?filter=name=~(')],
      ['path with invalid percent-encoding', 400, () => context.server.get('/api/v1/organization/%E0%A4%A')],
      ['no token', 401, () => context.server.get('/api/v1/organization', { token: null })],
      ['garbage token', 401, () => context.server.get('/api/v1/organization', { token: 'garbage' })],
      [
        'non-administrator write',
        403,
        () => context.server.post('/api/v1/organization', resourceDocument('organization', { name: 'y' }), { token: developer }),
      ],
      ['unknown id', 404, () => context.server.get(`/api/v1/organization/${randomUUID()}`)],
      ['unknown path', 404, () => context.server.get('/api/v1/nothing')],
      [
        'duplicate name',
        409,
        () => context.server.post('/api/v1/organization', resourceDocument('organization', { name: `shape-${context.kind}` })),
      ],
      ['stale If-Match', 412, () => context.server.delete(`/api/v1/organization/${id}`, { headers: { 'if-match': '"stale"' } })],
      [
        'body over 1 MiB',
        413,
        () =>
          context.server.post('/api/v1/organization', resourceDocument('organization', { name: 'z', description: 'x'.repeat(1100000) })),
      ],
      [
        'wrong media type',
        415,
        () => context.server.request('POST', '/api/v1/organization', { raw: 'name=z', headers: { 'content-type': 'text/plain' } }),
      ],
      [
        'invalid value',
        422,
        () => context.server.post('/api/v1/organization', resourceDocument('organization', { name: 'w', executionMode: 'sideways' })),
      ],
      [
        'NUL in a string',
        422,
        () => context.server.post('/api/v1/organization', resourceDocument('organization', { name: 'nul\u0000name' })),
      ],
    ];
    for (const [what, status, send] of cases) {
      await t.test(what, async () => {
        assertErrorDocument(await send(), status);
      });
    }
    assert.equal((await context.server.get(`/api/v1/organization/${id}`)).status, 200);
  });

  describe('media types', () => {
    it('a POST or PATCH body of another media type is 415 and changes nothing', async () => {
      const id = await createOrganization(context.server, { description: 'unchanged' });
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
        const name = `media-${randomUUID()}`;
        const created = await context.server.request('POST', '/api/v1/organization', {
          raw: JSON.stringify(resourceDocument('organization', { name })),
          headers: { 'content-type': contentType },
        });
        assert.equal(assertErrorDocument(created, 415).status, '415');
        assert.equal(await countNamed(context.server, name), 0);
        const form = await context.server.request('POST', '/api/v1/organization', {
          raw: `name=${name}`,
          headers: { 'content-type': contentType },
        });
        assertErrorDocument(form, 415);
        assert.equal(await countNamed(context.server, name), 0);

        const updated = await context.server.request('PATCH', `/api/v1/organization/${id}`, {
          raw: JSON.stringify(resourceDocument('organization', { description: 'changed' }, { id })),
          headers: { 'content-type': contentType },
        });
        assertErrorDocument(updated, 415);
        assert.equal((await context.server.get(`/api/v1/organization/${id}`)).body.data.attributes.description, 'unchanged');
      }
    });

    it('application/json bodies are accepted like application/vnd.api+json', async () => {
      const name = `plain-json-${randomUUID()}`;
      const created = await context.server.post('/api/v1/organization', resourceDocument('organization', { name }), {
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.get('content-type'), jsonApi);
      const id = created.body.data.id as string;
      const updated = await context.server.patch(
        `/api/v1/organization/${id}`,
        resourceDocument('organization', { description: 'via json' }, { id }),
        {
          headers: { 'content-type': 'application/json' },
        },
      );
      assert.equal(updated.status, 204, updated.text);
      assert.equal((await context.server.get(`/api/v1/organization/${id}`)).body.data.attributes.description, 'via json');
    });

    it('a GET or DELETE carrying Content-Type: application/vnd.api+json and no body is served (200, 204)', async () => {
      const id = await createOrganization(context.server);
      const headers = { 'content-type': jsonApi };
      const list = await context.server.get('/api/v1/organization', { headers });
      assert.equal(list.status, 200, list.text);
      assert.ok(Array.isArray(list.body.data));
      const filtered = await context.server.get(`/api/v1/organization?filter[organization]=id==${id}`, { headers });
      assert.equal(filtered.status, 200, filtered.text);
      assert.equal(filtered.body.data.length, 1);
      const read = await context.server.get(`/api/v1/organization/${id}`, { headers });
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.data.id, id);
      const removed = await context.server.delete(`/api/v1/organization/${id}`, { headers });
      assert.equal(removed.status, 204, removed.text);
      assert.equal(removed.text, '');
      assert.equal((await context.server.get(`/api/v1/organization/${id}`)).status, 404);
    });

    it('a JSON:API media type with a parameter other than ext and profile, or an extension Stratum lacks, is 415 before the body is read', async () => {
      const id = await createOrganization(context.server, { description: 'unchanged' });
      for (const contentType of [
        'application/vnd.api+json; charset=utf-8',
        'application/vnd.api+json; version=1.1',
        'application/vnd.api+json; ext="https://example.com/ext/unknown"',
        'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic https://example.com/ext/unknown"',
      ]) {
        const headers = { 'content-type': contentType };
        const name = `media-${randomUUID()}`;
        const created = await context.server.post('/api/v1/organization', resourceDocument('organization', { name }), { headers });
        assert.equal(assertErrorDocument(created, 415).code, 'unsupported_media_type', contentType);
        assert.equal(await countNamed(context.server, name), 0);
        // Refused for its media type, not for its malformed body.
        assertErrorDocument(await context.server.request('POST', '/api/v1/organization', { raw: '{"data":', headers }), 415);
        const template = await context.server.post(
          `/api/v1/organization/${id}/template`,
          resourceDocument('template', { name, tcl: Buffer.from('flow: []\n').toString('base64') }),
          { headers },
        );
        assertErrorDocument(template, 415);
        assert.equal((await context.server.get(`/api/v1/organization/${id}/template?filter[template]=name==${name}`)).body.data.length, 0);
        const updated = await context.server.patch(
          `/api/v1/organization/${id}`,
          resourceDocument('organization', { description: 'changed' }, { id }),
          { headers },
        );
        assertErrorDocument(updated, 415);
        const linked = await context.server.request('PATCH', `/api/v1/organization/${id}/relationships/template`, {
          body: { data: [] },
          headers,
        });
        assertErrorDocument(linked, 415);
        assertErrorDocument(await context.server.get(`/api/v1/organization/${id}`, { headers }), 415);
      }
      assert.equal((await context.server.get(`/api/v1/organization/${id}`)).body.data.attributes.description, 'unchanged');
      for (const contentType of [
        'application/vnd.api+json',
        'application/vnd.api+json; profile="https://example.com/profiles/audit"',
        'application/json; charset=utf-8',
      ]) {
        const name = `media-${randomUUID()}`;
        const created = await context.server.post('/api/v1/organization', resourceDocument('organization', { name }), {
          headers: { 'content-type': contentType },
        });
        assert.equal(created.status, 201, `${contentType}: ${created.text}`);
      }
    });

    it('an Accept that lists the JSON:API media type only with other parameters or unknown extensions is 406, and nothing changes', async () => {
      const id = await createOrganization(context.server, { description: 'unchanged' });
      for (const accept of [
        'application/vnd.api+json; charset=utf-8',
        'application/vnd.api+json; ext="https://example.com/ext/unknown"',
        'application/vnd.api+json; version=1.1, application/vnd.api+json; charset=utf-8, text/html',
        'application/vnd.api+json; charset=utf-8; q=0.9, application/vnd.api+json; q=0',
      ]) {
        const headers = { accept };
        assert.equal(assertErrorDocument(await context.server.get('/api/v1/organization', { headers }), 406).code, 'not_acceptable');
        assertErrorDocument(await context.server.get(`/api/v1/organization/${id}`, { headers }), 406);
        const name = `accept-${randomUUID()}`;
        assertErrorDocument(
          await context.server.post('/api/v1/organization', resourceDocument('organization', { name }), { headers }),
          406,
        );
        assert.equal(await countNamed(context.server, name), 0);
        const updated = await context.server.patch(
          `/api/v1/organization/${id}`,
          resourceDocument('organization', { description: 'changed' }, { id }),
          { headers },
        );
        assertErrorDocument(updated, 406);
        assertErrorDocument(await context.server.delete(`/api/v1/organization/${id}`, { headers }), 406);
      }
      assert.equal((await context.server.get(`/api/v1/organization/${id}`)).body.data.attributes.description, 'unchanged');
      // One instance the answer fits is enough.
      for (const accept of [
        'application/vnd.api+json; charset=utf-8, application/vnd.api+json',
        'application/vnd.api+json; profile="https://example.com/profiles/audit"',
        'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"',
        // A weight is no parameter of the media type.
        'text/html, application/vnd.api+json; q=0.8',
      ]) {
        const read = await context.server.get(`/api/v1/organization/${id}`, { headers: { accept } });
        assert.equal(read.status, 200, `${accept}: ${read.text}`);
      }
    });

    it('JSON:API answers vary with Accept, whatever they are', async () => {
      const id = await createOrganization(context.server);
      const answers = [
        await context.server.get('/api/v1/organization'),
        await context.server.get(`/api/v1/organization/${id}`),
        await context.server.post('/api/v1/organization', resourceDocument('organization', { name: `vary-${randomUUID()}` })),
        await context.server.patch(`/api/v1/organization/${id}`, resourceDocument('organization', { description: 'x' }, { id })),
        await context.server.get(`/api/v1/organization/${randomUUID()}`),
        await context.server.get('/api/v1/organization', { headers: { accept: 'application/vnd.api+json; charset=utf-8' } }),
        await context.server.post('/api/v1/organization', {}, { headers: { 'content-type': 'application/vnd.api+json; charset=utf-8' } }),
        await context.server.request('POST', '/api/v1/operations', {
          body: { 'atomic:operations': [] },
          headers: { 'content-type': 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"' },
        }),
      ];
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [200, 200, 201, 204, 404, 406, 415, 400],
      );
      for (const answer of answers) assert.match(answer.headers.get('vary') ?? '', /\bAccept\b/i, `${answer.status} ${answer.text}`);
    });

    it('responses are application/vnd.api+json whatever an Accept header that does not rule it out', async () => {
      const id = await createOrganization(context.server);
      for (const accept of [undefined, '*/*', 'application/json, text/plain, */*', 'application/json', 'text/html']) {
        const headers: Record<string, string> = accept === undefined ? {} : { accept };
        const list = await context.server.get('/api/v1/organization', { headers });
        assert.equal(list.status, 200, `Accept ${String(accept)}: ${list.text}`);
        assert.equal(list.headers.get('content-type'), jsonApi, `Accept ${String(accept)}`);
        const read = await context.server.get(`/api/v1/organization/${id}`, { headers });
        assert.equal(read.status, 200);
        assert.equal(read.headers.get('content-type'), jsonApi, `Accept ${String(accept)}`);
        const created = await context.server.post(
          '/api/v1/organization',
          resourceDocument('organization', { name: `accept-${randomUUID()}` }),
          {
            headers,
          },
        );
        assert.equal(created.status, 201, created.text);
        assert.equal(created.headers.get('content-type'), jsonApi, `Accept ${String(accept)}`);
        assertErrorDocument(await context.server.get(`/api/v1/organization/${randomUUID()}`, { headers }), 404);
        assertErrorDocument(await context.server.get('/api/v1/organization', { headers, token: null }), 401);
      }
    });
  });

  describe('request bodies', () => {
    it('malformed JSON is 400 and creates nothing', async () => {
      const name = `malformed-${randomUUID()}`;
      for (const raw of [
        `{"data": {"type": "organization", "attributes": {"name": "${name}"}`,
        `{"data": ${name}}`,
        'not json',
        '{"data":}',
      ]) {
        const response = await context.server.request('POST', '/api/v1/organization', { raw });
        assertErrorDocument(response, 400);
      }
      assert.equal(await countNamed(context.server, name), 0);
      const id = await createOrganization(context.server, { description: 'kept' });
      const patch = await context.server.request('PATCH', `/api/v1/organization/${id}`, {
        raw: '{"data": {"type": "organization", "id": ',
      });
      assertErrorDocument(patch, 400);
      assert.equal((await context.server.get(`/api/v1/organization/${id}`)).body.data.attributes.description, 'kept');
    });

    it('a malformed body is not echoed back in the error (no value of it, secret or not, in the detail)', async () => {
      const secret = 'hunter2hunter2hunter2';
      const raw = `{"data": {"type": "organization", "attributes": {"name": "leak", "description": ${secret}}}}`;
      const response = await context.server.request('POST', '/api/v1/organization', { raw });
      assertErrorDocument(response, 400);
      assert.ok(!response.text.includes('hunter2'), `the error repeats part of the body: ${response.text}`);
    });

    it('an empty POST body with the JSON:API content type is 400', async () => {
      const before = (await context.server.get('/api/v1/organization')).body.data.length as number;
      const empty = await context.server.request('POST', '/api/v1/organization', { raw: '', headers: { 'content-type': jsonApi } });
      assertErrorDocument(empty, 400);
      const blank = await context.server.request('POST', '/api/v1/organization', { raw: '  \n', headers: { 'content-type': jsonApi } });
      assertErrorDocument(blank, 400);
      assert.equal((await context.server.get('/api/v1/organization')).body.data.length, before);
    });

    it('an empty PATCH body is 400 and changes nothing', async () => {
      const id = await createOrganization(context.server, { description: 'kept' });
      const response = await context.server.request('PATCH', `/api/v1/organization/${id}`, {
        raw: '',
        headers: { 'content-type': jsonApi },
      });
      assertErrorDocument(response, 400);
      assert.equal((await context.server.get(`/api/v1/organization/${id}`)).body.data.attributes.description, 'kept');
    });

    it('a body over 1 MiB is 413 and creates nothing', async () => {
      const name = `big-${randomUUID()}`;
      const response = await context.server.post(
        '/api/v1/organization',
        resourceDocument('organization', { name, description: 'x'.repeat(1024 * 1024) }),
      );
      const error = assertErrorDocument(response, 413);
      assert.equal(error.code, 'payload_too_large');
      assert.equal(await countNamed(context.server, name), 0);
      // The server still serves the next request.
      assert.equal((await context.server.get('/api/v1/organization')).status, 200);
    });

    it('a body of exactly 1 MiB is read (and judged on its values, not refused for its size)', async () => {
      const name = `almost-big-${randomUUID()}`;
      const document = JSON.stringify(resourceDocument('organization', { name, description: 'x'.repeat(500) }));
      const padded = `${document.slice(0, -1)}${' '.repeat(1024 * 1024 - document.length)}}`;
      assert.equal(Buffer.byteLength(padded), 1024 * 1024);
      const response = await context.server.request('POST', '/api/v1/organization', { raw: padded });
      assert.notEqual(response.status, 413, response.text);
      assert.equal(response.status, 201, response.text);
    });
  });

  describe('authentication', () => {
    let organizationId: string;
    before(async () => {
      organizationId = await createOrganization(context.server, { name: `auth-${context.kind}` });
    });

    it('no Authorization header is 401 with WWW-Authenticate: Bearer, and nothing is created', async () => {
      const list = await context.server.get('/api/v1/organization', { token: null });
      assertUnauthorized(list, false);
      assert.equal(list.headers.get('www-authenticate'), 'Bearer');
      const read = await context.server.get(`/api/v1/organization/${organizationId}`, { token: null });
      assertUnauthorized(read, false);
      const name = `anonymous-${randomUUID()}`;
      assertUnauthorized(
        await context.server.post('/api/v1/organization', resourceDocument('organization', { name }), { token: null }),
        false,
      );
      assert.equal(await countNamed(context.server, name), 0);
      assertUnauthorized(await context.server.delete(`/api/v1/organization/${organizationId}`, { token: null }), false);
      assert.equal((await context.server.get(`/api/v1/organization/${organizationId}`)).status, 200);
      assertUnauthorized(await context.server.get('/api/v1/organization', { headers: { authorization: '' }, token: null }), false);
    });

    it('Authorization: Basic and a garbage bearer token are 401 with error="invalid_token" and never echoed', async () => {
      const basic = `Basic ${Buffer.from('admin:password').toString('base64')}`;
      const garbage = `garbage-${randomUUID()}`;
      const cases = [basic, `Bearer ${garbage}`, 'Bearer', `Bearer ${garbage}.${garbage}.${garbage}`, `Token ${context.server.adminToken}`];
      for (const authorization of cases) {
        const response = await context.server.get('/api/v1/organization', { headers: { authorization } });
        assertUnauthorized(response, true);
        for (const part of authorization.split(' ').slice(1)) assertNotEchoed(response, part);
        assert.ok(!response.text.includes('admin:password'));
      }
    });

    it('an expired token is 401 and cannot write', async () => {
      const token = await context.server.token({ groups: ['STRATUM_ADMIN'], ttlSeconds: -60 });
      const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { exp: number };
      assert.ok(payload.exp < Date.now() / 1000, 'the token is expired');
      const list = await context.server.get('/api/v1/organization', { token });
      assertUnauthorized(list, true);
      assertNotEchoed(list, token);
      const name = `expired-${randomUUID()}`;
      assertUnauthorized(await context.server.post('/api/v1/organization', resourceDocument('organization', { name }), { token }), true);
      assert.equal(await countNamed(context.server, name), 0);
    });

    it('a token signed with another key is 401 and cannot write', async () => {
      const other = new TokenSigner(randomBytes(32).toString('base64url'), 'STRATUM_ADMIN');
      const { token } = await other.sign({ subject: 'intruder@example.com', groups: ['STRATUM_ADMIN'], ttlSeconds: 3600 });
      const list = await context.server.get('/api/v1/organization', { token });
      assertUnauthorized(list, true);
      assertNotEchoed(list, token);
      // Says why, so an operator sees a token minted for another server at once.
      assert.match(list.body.errors[0].detail, /signature does not match this server's signing key/);
      const name = `other-key-${randomUUID()}`;
      const created = await context.server.post('/api/v1/organization', resourceDocument('organization', { name }), { token });
      assertUnauthorized(created, true);
      assert.equal(await countNamed(context.server, name), 0);
      assertUnauthorized(await context.server.delete(`/api/v1/organization/${organizationId}`, { token }), true);
      assert.equal((await context.server.get(`/api/v1/organization/${organizationId}`)).status, 200);
    });

    it('an alg "none" token claiming the administrator group is 401 and cannot write', async () => {
      const payload = {
        sub: 'intruder@example.com',
        groups: ['STRATUM_ADMIN'],
        iss: 'stratum',
        iat: Math.floor(Date.now() / 1000),
        exp: inOneHour(),
      };
      const header = base64url({ alg: 'none', typ: 'JWT' });
      for (const token of [`${header}.${base64url(payload)}.`, `${header}.${base64url(payload)}`]) {
        const list = await context.server.get('/api/v1/organization', { token });
        assertUnauthorized(list, true);
        const name = `alg-none-${randomUUID()}`;
        assertUnauthorized(await context.server.post('/api/v1/organization', resourceDocument('organization', { name }), { token }), true);
        assert.equal(await countNamed(context.server, name), 0);
        assertUnauthorized(await context.server.delete(`/api/v1/organization/${organizationId}`, { token }), true);
        assert.equal((await context.server.get(`/api/v1/organization/${organizationId}`)).status, 200);
      }
    });

    it('a token whose payload was edited to add the administrator group keeps its old signature and is 401', async () => {
      const token = await context.server.token({ subject: 'dev@example.com', groups: ['developers'] });
      const [header, body, signature] = token.split('.');
      const claims = JSON.parse(Buffer.from(body ?? '', 'base64url').toString()) as Record<string, unknown>;
      const forged = `${header ?? ''}.${base64url({ ...claims, groups: ['developers', 'STRATUM_ADMIN'] })}.${signature ?? ''}`;
      assert.equal((await context.server.get('/api/v1/organization', { token })).status, 200, 'the original token is valid');
      const list = await context.server.get('/api/v1/organization', { token: forged });
      assertUnauthorized(list, true);
      assertNotEchoed(list, forged);
      const name = `forged-${randomUUID()}`;
      assertUnauthorized(
        await context.server.post('/api/v1/organization', resourceDocument('organization', { name }), { token: forged }),
        true,
      );
      assert.equal(await countNamed(context.server, name), 0);
    });

    it('a token of the right key but another issuer, or with no subject, is 401', async () => {
      const key = context.server.env.STRATUM_TOKEN_KEY ?? '';
      const foreign = signHs256(key, { sub: 'x@example.com', groups: ['STRATUM_ADMIN'], iss: 'someone-else', exp: inOneHour() });
      assertUnauthorized(await context.server.get('/api/v1/organization', { token: foreign }), true);
      const anonymous = signHs256(key, { groups: ['STRATUM_ADMIN'], iss: 'stratum', exp: inOneHour() });
      assertUnauthorized(await context.server.get('/api/v1/organization', { token: anonymous }), true);
      const sanity = signHs256(key, { sub: 'x@example.com', groups: ['STRATUM_ADMIN'], iss: 'stratum', exp: inOneHour() });
      assert.equal(
        (await context.server.get('/api/v1/organization', { token: sanity })).status,
        200,
        'a hand-signed valid token is accepted',
      );
    });

    it('a token with no groups claim is accepted and sees no organization, rather than an error', async () => {
      const token = signHs256(context.server.env.STRATUM_TOKEN_KEY ?? '', {
        sub: 'nogroups@example.com',
        iss: 'stratum',
        exp: inOneHour(),
      });
      const list = await context.server.get('/api/v1/organization', { token });
      assert.equal(list.status, 200, list.text);
      assert.equal(list.headers.get('content-type'), jsonApi);
      assert.deepEqual(list.body.data, []);
      assertErrorDocument(await context.server.get(`/api/v1/organization/${organizationId}`, { token }), 404);
      const name = `nogroups-${randomUUID()}`;
      assertErrorDocument(await context.server.post('/api/v1/organization', resourceDocument('organization', { name }), { token }), 403);
      assert.equal(await countNamed(context.server, name), 0);
    });
  });

  describe('public endpoints, unknown paths and parameters', () => {
    it('GET /healthz and GET /readyz answer 200 without a token', async () => {
      for (const urlPath of ['/healthz', '/readyz']) {
        const response = await context.server.get(urlPath, { token: null });
        assert.equal(response.status, 200, `${urlPath}: ${response.text}`);
        assert.equal(response.body.status, 'ok');
      }
    });

    it('an unknown path is a JSON:API 404', async () => {
      for (const urlPath of ['/api/v1/nothing', '/api/v1/nothing/at/all', '/nothing']) {
        assertErrorDocument(await context.server.get(urlPath), 404);
        assertErrorDocument(await context.server.post(urlPath, resourceDocument('nothing', {})), 404);
      }
    });

    it('an unknown query parameter on a list is 400 naming it in source.parameter', async () => {
      const response = await context.server.get('/api/v1/organization?bogus=1');
      const error = assertErrorDocument(response, 400);
      assert.deepEqual(error.source, { parameter: 'bogus' });
      const id = await createOrganization(context.server);
      const nested = await context.server.get(`/api/v1/organization/${id}/template?pageSize=10`);
      assert.deepEqual(assertErrorDocument(nested, 400).source, { parameter: 'pageSize' });
    });
  });

  describe('configuration errors', () => {
    it('PORT=abc stops the server at once with a message naming PORT', () => {
      const result = startWithBadConfig(context.server, { PORT: 'abc' });
      assert.equal(result.signal, null, `the server did not exit by itself: ${result.stderr}`);
      assert.notEqual(result.status, 0);
      assert.ok(result.ms < 10000, `took ${result.ms} ms`);
      assert.match(result.stderr, /\bPORT\b/);
      assert.match(result.stderr, /abc/);
      assertNothingInternal(result.stderr);
    });

    it('STRATUM_LOG_LEVEL=loud stops the server at once with a message naming STRATUM_LOG_LEVEL', () => {
      const result = startWithBadConfig(context.server, { STRATUM_LOG_LEVEL: 'loud' });
      assert.equal(result.signal, null, `the server did not exit by itself: ${result.stderr}`);
      assert.notEqual(result.status, 0);
      assert.ok(result.ms < 10000, `took ${result.ms} ms`);
      assert.match(result.stderr, /STRATUM_LOG_LEVEL/);
      assert.match(result.stderr, /loud/);
      assertNothingInternal(result.stderr);
    });
    it('STRATUM_PERSONAL_TOKEN_MAX_DAYS=0 stops the server at once with a message naming it', () => {
      const result = startWithBadConfig(context.server, { STRATUM_PERSONAL_TOKEN_MAX_DAYS: '0' });
      assert.equal(result.signal, null, `the server did not exit by itself: ${result.stderr}`);
      assert.notEqual(result.status, 0);
      assert.match(result.stderr, /STRATUM_PERSONAL_TOKEN_MAX_DAYS must be an integer from 1/);
      assertNothingInternal(result.stderr);
    });
    it('STRATUM_TEAM_TOKEN_MAX_DAYS, STRATUM_WORKSPACE_GLOBAL_REMOTE_STATE and STRATUM_UI_URL out of their range stop the server, naming each', () => {
      const result = startWithBadConfig(context.server, {
        STRATUM_TEAM_TOKEN_MAX_DAYS: 'never',
        STRATUM_WORKSPACE_GLOBAL_REMOTE_STATE: 'no',
        STRATUM_UI_URL: 'ui.example.com',
      });
      assert.equal(result.signal, null, `the server did not exit by itself: ${result.stderr}`);
      assert.notEqual(result.status, 0);
      assert.match(result.stderr, /STRATUM_TEAM_TOKEN_MAX_DAYS must be an integer from 1/);
      assert.match(result.stderr, /STRATUM_WORKSPACE_GLOBAL_REMOTE_STATE must be true or false, got "no"/);
      assert.match(
        result.stderr,
        /STRATUM_UI_URL must be an http:\/\/ or https:\/\/ URL without query, such as https:\/\/terrakube\.example\.com, got "ui\.example\.com"/,
      );
      assertNothingInternal(result.stderr);
    });
  });

  describe('logs', () => {
    it('one JSON line per request with method, path, status and ms, and never the token', async () => {
      const token = await context.server.token({ groups: ['STRATUM_ADMIN'] });
      const signature = token.split('.')[2] ?? '';
      const marker = `/api/v1/organization/${randomUUID()}`;
      assert.equal((await context.server.get('/api/v1/organization', { token })).status, 200);
      assert.equal((await context.server.get(marker, { token })).status, 404);
      assert.equal((await context.server.get('/api/v1/organization', { token: `${token}x` })).status, 401);

      // The log is written asynchronously: wait for the lines rather than read it at once.
      const line = await eventually('the requests in the log', () => {
        const entries = context.server.logs.map((text) => JSON.parse(text) as Record<string, unknown>);
        const index = entries.findIndex((entry) => entry.path === marker);
        assert.ok(index >= 0, 'the request was logged');
        // Earlier tests' refused requests are in the log too; this one came after the marker.
        const later = entries.slice(index + 1);
        assert.ok(
          later.some((entry) => entry.path === '/api/v1/organization' && entry.status === 401),
          'the refused request was logged',
        );
        return entries[index];
      });
      assert.ok(line !== undefined, 'the request was logged');
      assert.equal(line.method, 'GET');
      assert.equal(line.status, 404);
      assert.equal(typeof line.ms, 'number');
      for (const secret of [token, signature, context.server.adminToken, context.server.adminToken.split('.')[2] ?? '']) {
        for (const text of context.server.logs) assert.ok(!text.includes(secret), `a log line holds a token or its signature: ${text}`);
      }
    });
  });
});

describeEachStore('administrator group from STRATUM_ADMIN_GROUP', { env: { STRATUM_ADMIN_GROUP: 'platform-admins' } }, (context) => {
  it('a member of the configured group creates an organization; STRATUM_ADMIN then is no administrator (403, nothing created)', async () => {
    const platform = await context.server.token({ groups: ['platform-admins'] });
    const name = `platform-${randomUUID()}`;
    const created = await context.server.post('/api/v1/organization', resourceDocument('organization', { name }), { token: platform });
    assert.equal(created.status, 201, created.text);

    const formerAdmin = await context.server.token({ groups: ['STRATUM_ADMIN'] });
    const refusedName = `former-admin-${randomUUID()}`;
    const refused = await context.server.post('/api/v1/organization', resourceDocument('organization', { name: refusedName }), {
      token: formerAdmin,
    });
    assertErrorDocument(refused, 403);
    assert.equal(await countNamed(context.server, refusedName, platform), 0);
    assert.equal(await countNamed(context.server, name, platform), 1);

    const id = created.body.data.id as string;
    const list = await context.server.get('/api/v1/organization', { token: formerAdmin });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data, [], 'STRATUM_ADMIN sees no organization there');
    assertErrorDocument(await context.server.delete(`/api/v1/organization/${id}`, { token: formerAdmin }), 404);
    assert.equal((await context.server.get(`/api/v1/organization/${id}`, { token: platform })).status, 200);
  });
});

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import pino from 'pino';
import { errorRendering } from '../src/http/plugins/error-rendering.ts';
import { arrival } from '../src/http/plugins/arrival.ts';
import { requestIdOf, stampRequestId } from '../src/http/plugins/request-id.ts';
import { requestLog } from '../src/http/plugins/request-log.ts';
import { createOrganization, describeEachStore, eventually, metricsUrl, type TestServer } from './harness.ts';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The request line of the request with this id, once the asynchronous log has written it. */
function requestLine(server: TestServer, reqId: string): Promise<Record<string, unknown>> {
  return eventually(`the log line of ${reqId}`, () => {
    const line = server.logs
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((l) => l.reqId === reqId && l.msg === 'request');
    assert.ok(line !== undefined, 'not logged yet');
    return line;
  });
}

describeEachStore('request ids and the request log', (context) => {
  it("adopts the caller's X-Request-Id: it comes back in the answer and in the request's log line", async () => {
    const id = `deploy-42.${context.kind}:7`;
    const response = await context.server.get('/api/v1/organization', { headers: { 'x-request-id': id } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-request-id'), id);
    const line = await requestLine(context.server, id);
    assert.equal(line.method, 'GET');
    assert.equal(line.route, '/api/v1/organization');
    assert.equal(line.status, 200);
    assert.equal(typeof line.ms, 'number');
    assert.equal(line.caller, 'admin@example.com');
    assert.equal(line.code, undefined);
  });

  it('replaces an id that is not sane (too long, spaces, quotes, control characters) with a new one', async () => {
    for (const sent of ['a'.repeat(129), 'two words', 'quote"d', '-leading-dash', '']) {
      const response = await context.server.get('/healthz', { token: null, headers: { 'x-request-id': sent } });
      assert.match(response.headers.get('x-request-id') ?? '', uuid, `"${sent}" was not replaced`);
    }
    assert.match((await context.server.get('/healthz', { token: null })).headers.get('x-request-id') ?? '', uuid);
  });

  it('gives every answer an id, errors included, and logs the error code of a 4xx and the reason of a 401', async () => {
    const organization = await createOrganization(context.server);
    const cases: { method: string; path: string; token?: string | null; status: number; code: string; route: string | null }[] = [
      {
        method: 'GET',
        path: `/api/v1/organization/${organization}/template/${organization}`,
        status: 404,
        code: 'not_found',
        route: '/api/v1/organization/:organizationId/template/:templateId',
      },
      { method: 'GET', path: '/api/v1/nothing-here', status: 404, code: 'not_found', route: null },
      { method: 'PUT', path: `/api/v1/organization/${organization}`, status: 405, code: 'method_not_allowed', route: null },
      { method: 'GET', path: '/api/v1/organization', token: 'not-a-jwt', status: 401, code: 'unauthorized', route: '/api/v1/organization' },
      { method: 'GET', path: '/api/v1/organization/%E0%A4%A', status: 400, code: 'bad_request', route: null },
    ];
    for (const [index, c] of cases.entries()) {
      const id = `case-${index}-${context.kind}`;
      const response = await context.server.request(c.method, c.path, {
        headers: { 'x-request-id': id },
        ...(c.token === undefined ? {} : { token: c.token }),
      });
      assert.equal(response.status, c.status, `${c.method} ${c.path}: ${response.text}`);
      assert.equal(response.headers.get('x-request-id'), id, `${c.method} ${c.path} answered without its id`);
      const line = await requestLine(context.server, id);
      assert.equal(line.status, c.status);
      assert.equal(line.code, c.code, `${c.method} ${c.path}`);
      if (c.status !== 400) assert.equal(line.route, c.route, `${c.method} ${c.path}`);
      if (c.status === 401) assert.equal(line.reason, 'the token is not a JWT');
      else assert.equal(line.reason, undefined);
    }
  });

  it('answers a known path asked with another method with 405 and Allow; an unknown path stays 404', async () => {
    const organization = await createOrganization(context.server);
    const allowed: [string, string, string][] = [
      ['DELETE', '/api/v1/organization', 'GET, HEAD, POST'],
      ['PUT', `/api/v1/organization/${organization}`, 'DELETE, GET, HEAD, PATCH'],
      ['PUT', `/api/v1/organization/${organization}/relationships/template`, 'DELETE, GET, HEAD, PATCH, POST'],
      ['POST', '/healthz', 'GET, HEAD'],
      ['PATCH', '/access-token/v1/teams', 'GET, HEAD, POST'],
      ['DELETE', '/api/openapi.json', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of allowed) {
      const response = await context.server.request(method, path, { body: method === 'DELETE' || method === 'PUT' ? undefined : {} });
      assert.equal(response.status, 405, `${method} ${path}: ${response.text}`);
      assert.equal(response.headers.get('allow'), allow, `${method} ${path}`);
      assert.equal(response.headers.get('content-type'), 'application/vnd.api+json');
      assert.match(response.body.errors[0].detail, new RegExp(`does not answer ${method}; it answers ${allow}`));
    }
    assert.equal((await context.server.request('DELETE', '/api/v1/no-such-resource')).status, 404);
    assert.equal((await context.server.get(`/api/v1/organization/${organization}/no-such-link`)).status, 404);
  });

  it('GET / and GET /api/v1 answer without a token, the OpenAPI document as describedby and the other addresses in meta', async () => {
    for (const path of ['/', '/api/v1']) {
      const response = await context.server.get(path, { token: null });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.headers.get('content-type'), 'application/vnd.api+json');
      // Only the top-level link names JSON:API defines.
      assert.deepEqual(response.body.links, { self: path, describedby: '/api/openapi.json' });
      assert.deepEqual(response.body.meta.addresses, { docs: '/api/docs', api: '/api/v1', health: '/healthz', ready: '/readyz' });
      assert.match(response.body.meta.authentication, /npx stratum token/);
      assert.equal((await context.server.get(response.body.links.describedby, { token: null })).status, 200);
      for (const address of Object.values(response.body.meta.addresses as Record<string, string>)) {
        assert.notEqual((await context.server.get(address, { token: null })).status, 404, address);
      }
    }
  });

  it('serves no metrics unless configured', async () => {
    assert.equal((await context.server.get('/metrics', { token: null })).status, 404);
    assert.ok(!context.server.logs.some((line) => line.includes('metrics listening')));
  });
});

/** The value of one series in a scrape, NaN when it is not there. */
function seriesValue(scrape: string, series: string): number {
  return Number(new RegExp(`^${series.replace(/[{}[\]().*+?^$|\\]/g, '\\$&')} (\\S+)$`, 'm').exec(scrape)?.[1]);
}

describeEachStore('Prometheus metrics', { env: { STRATUM_METRICS_PORT: '0' } }, (context) => {
  it('serves request counts, latency histograms, database connections and process metrics on their own port', async () => {
    const url = metricsUrl(context.server);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const organization = await createOrganization(context.server);
    for (let i = 0; i < 3; i++) assert.equal((await context.server.get(`/api/v1/organization/${organization}`)).status, 200);
    assert.equal((await context.server.get('/api/v1/organization', { token: null })).status, 401);
    assert.equal((await context.server.get('/no/such/path', { token: null })).status, 404);

    const scrape = await fetch(url);
    assert.equal(scrape.status, 200);
    assert.match(scrape.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await scrape.text();
    const value = (series: string) => seriesValue(text, series);
    assert.equal(value('stratum_http_requests_total{method="GET",route="/api/v1/organization/:organizationId",status="200"}'), 3);
    assert.equal(value('stratum_http_requests_total{method="GET",route="/api/v1/organization",status="401"}'), 1);
    assert.equal(value('stratum_http_requests_total{method="GET",route="unmatched",status="404"}'), 1);
    assert.equal(
      value('stratum_http_request_duration_seconds_count{method="GET",route="/api/v1/organization/:organizationId",status="200"}'),
      3,
    );
    assert.match(
      text,
      /^stratum_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/v1\/organization\/:organizationId",status="200"\} \d+$/m,
    );
    assert.equal(value('stratum_http_requests_in_flight'), 0, 'every request was answered');
    assert.ok(value(`stratum_database_connections_max{store="${context.kind}"}`) >= 1);
    assert.ok(value(`stratum_database_connections{store="${context.kind}"}`) >= 1);
    assert.equal(value(`stratum_database_waiting_queries{store="${context.kind}"}`), 0);
    assert.match(text, /^process_cpu_seconds_total \d/m);
    // The kernel's high-water mark, which a scrape between two peaks cannot miss: at least what the
    // process holds (the two are read a moment apart).
    assert.ok(value('stratum_process_resident_memory_peak_bytes') >= 0.9 * value('process_resident_memory_bytes'));
    assert.match(text, /^nodejs_heap_size_used_bytes \d/m);
    assert.doesNotMatch(text, /organization\/0/, 'a record id became a label');

    assert.equal((await fetch(url, { method: 'POST' })).status, 405);
    assert.equal((await fetch(url.replace('/metrics', '/other'))).status, 404);
    assert.equal((await context.server.get('/metrics', { token: null })).status, 404, 'metrics leak onto the API port');
  });

  it('counts the errors inside GraphQL answers by code and names them in the request line, whose status stays 200', async () => {
    const ask = (id: string, query: string, token?: null) =>
      context.server.request('POST', '/graphql/api/v1', {
        raw: JSON.stringify({ query }),
        headers: { 'content-type': 'application/json', 'x-request-id': `${id}-${context.kind}` },
        ...(token === undefined ? {} : { token }),
      });
    const codes = (body: { errors?: { extensions: { code: string } }[] }) => (body.errors ?? []).map((e) => e.extensions.code);

    const unknownFields = await ask('gql-fields', '{ organization { edges { node { id nope alsoNope } } } }');
    assert.equal(unknownFields.status, 200, unknownFields.text);
    assert.deepEqual(codes(unknownFields.body), ['invalid_query', 'invalid_query']);
    // One field fails, the other is answered: data and errors together.
    const halfFailed = await ask(
      'gql-argument',
      '{ a: organization { edges { node { id } } } b: organization(filter: "name=") { edges { node { id } } } }',
    );
    assert.equal(halfFailed.status, 200, halfFailed.text);
    assert.ok(Array.isArray(halfFailed.body.data.a.edges), halfFailed.text);
    assert.deepEqual(codes(halfFailed.body), ['invalid_argument']);
    const anonymous = await ask('gql-anonymous', '{ organization { edges { node { id } } } }', null);
    assert.equal(anonymous.status, 401);
    const answered = await ask('gql-fine', '{ organization { edges { node { id } } } }');
    assert.deepEqual(codes(answered.body), []);

    const lines = {
      fields: await requestLine(context.server, `gql-fields-${context.kind}`),
      argument: await requestLine(context.server, `gql-argument-${context.kind}`),
      anonymous: await requestLine(context.server, `gql-anonymous-${context.kind}`),
      fine: await requestLine(context.server, `gql-fine-${context.kind}`),
    };
    assert.deepEqual(
      Object.values(lines).map((line) => ({ status: line.status, code: line.code, graphqlErrors: line.graphqlErrors })),
      [
        { status: 200, code: undefined, graphqlErrors: ['invalid_query'] },
        { status: 200, code: undefined, graphqlErrors: ['invalid_argument'] },
        { status: 401, code: 'unauthorized', graphqlErrors: ['unauthorized'] },
        { status: 200, code: undefined, graphqlErrors: undefined },
      ],
    );

    const scrape = await (await fetch(metricsUrl(context.server))).text();
    const errorsOf = (code: string) => seriesValue(scrape, `stratum_graphql_errors_total{code="${code}"}`);
    assert.deepEqual(['invalid_query', 'invalid_argument', 'unauthorized'].map(errorsOf), [2, 1, 1]);
    assert.equal(seriesValue(scrape, 'stratum_http_requests_total{method="POST",route="/graphql/api/v1",status="200"}'), 3);
  });
});

describe('unexpected errors', () => {
  it('are answered 500 with the request id and logged once, with the id and the stack, and no detail for the caller', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const text of chunk
          .toString()
          .split('\n')
          .filter((t) => t !== ''))
          lines.push(JSON.parse(text) as Record<string, unknown>);
        done();
      },
    });
    const log = pino({ level: 'info' }, sink);
    const app = Fastify({ logger: false, genReqId: requestIdOf });
    await app.register(errorRendering, { log });
    await app.register(arrival, { steps: [stampRequestId] });
    await app.register(requestLog, { log });
    app.get('/boom', () => {
      throw new Error('secret internals: select * from api_token');
    });
    const response = await app.inject({ method: 'GET', url: '/boom', headers: { 'x-request-id': 'boom-1' } });
    await app.close();
    assert.equal(response.statusCode, 500);
    assert.equal(response.headers['x-request-id'], 'boom-1');
    assert.doesNotMatch(response.body, /secret internals/);
    const failures = lines.filter((l) => l.msg === 'request failed');
    assert.equal(failures.length, 1);
    const [failure] = failures;
    assert.ok(failure !== undefined);
    assert.equal(failure.reqId, 'boom-1');
    assert.match(JSON.stringify(failure.error), /secret internals[\s\S]*stack/);
    const request = lines.filter((l) => l.msg === 'request');
    assert.equal(request.length, 1);
    assert.deepEqual(
      { reqId: request[0]?.reqId, status: request[0]?.status, code: request[0]?.code },
      { reqId: 'boom-1', status: 500, code: 'internal_error' },
    );
  });
});

import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createOrganization, createRecord, createWorkspace, describeEachStore, type Response } from './harness.ts';
import { data, errors, graphql, graphqlPath, literal } from './graphql-helpers.ts';
import { Random, readSeed } from './seeded-random.ts';
import { memoryDuring } from './server-metrics.ts';

/** What must never show in an answer: traces of the code, and of the database behind it. */
const internals = [
  /\bat (?:async |new )?[\w$.<>[\]]+ \((?:file:|node:|\/)/,
  /\.(?:ts|js|mjs|cjs):\d+/,
  /\b(?:Type|Range|Reference|Internal)Error\b|SqliteError|DatabaseError/,
  /\b(?:select\s+(?:\*|1|count|"|[\w"]+\.)|insert\s+into|delete\s+from)/i,
  /SQLITE_|syntax error at or near|no such (?:table|column)|violates .* constraint|invalid input syntax/i,
];

/** An answer refused before GraphQL ran, or a GraphQL answer with errors: never a 5xx, a trace or a non-GraphQL shape. */
function assertGraphQLErrors(response: Response, status: number, what: string): void {
  assert.equal(response.status, status, `${what}: ${response.text}`);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/, what);
  assert.ok(Array.isArray(response.body?.errors) && response.body.errors.length > 0, `${what}: ${response.text}`);
  for (const error of response.body.errors) {
    assert.equal(typeof error.message, 'string', what);
    assert.equal(typeof error.extensions?.code, 'string', what);
    assert.equal(typeof error.extensions?.status, 'number', what);
    assert.ok(error.extensions.status < 500, `${what}: ${response.text}`);
  }
  for (const pattern of internals) assert.doesNotMatch(response.text, pattern, what);
}

const post = (
  context: { server: { request: (m: string, p: string, o: object) => Promise<Response> } },
  raw: string,
  contentType = 'application/json',
) => context.server.request('POST', graphqlPath, { raw, headers: { 'content-type': contentType } });

describeEachStore('GraphQL limits and hostile requests', (context) => {
  let organization = '';

  before(async () => {
    organization = await createOrganization(context.server, { name: 'wide' });
    for (let i = 0; i < 50; i++) await createWorkspace(context.server, organization, { name: `ws-${i}` });
  });

  const refused = async (query: string, code: string) => {
    const response = await graphql(context.server, query);
    assertGraphQLErrors(response, 200, code);
    assert.equal(response.body.data, undefined, 'nothing ran');
    assert.deepEqual(
      response.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code),
      [code],
    );
    return response.body.errors[0].message as string;
  };

  it('a query nested more than 20 fields deep is refused before it runs', async () => {
    const level = (inner: string) => `organization { edges { node { workspace { edges { node { ${inner} } } } } } }`;
    let query = 'id';
    for (let i = 0; i < 4; i++) query = level(query);
    assert.match(await refused(`{ ${query} }`, 'query_too_deep'), /more than 20 deep/);
  });

  it('a query of more than 1000 fields, or one that spreads fragments into more, is refused at once', async () => {
    const aliases = Array.from({ length: 1001 }, (_, i) => `f${i}: name`).join(' ');
    await refused(`{ organization { edges { node { ${aliases} } } } }`, 'query_too_large');
    // Each fragment spreads the one before twice: 2^40 fields once expanded.
    const spread = ['fragment F0 on Organization { id name }'];
    for (let i = 1; i <= 40; i++) spread.push(`fragment F${i} on Organization { ...F${i - 1} ...F${i - 1} }`);
    const started = Date.now();
    const response = await graphql(
      context.server,
      `
        {
          organization {
            edges {
              node {
                ...F40
              }
            }
          }
        }
        ${spread.join(' ')}
      `,
    );
    assertGraphQLErrors(response, 200, 'fragments');
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  });

  it('a query reading more than 50 lists is refused before it runs', async () => {
    const lists = Array.from({ length: 51 }, (_, i) => `l${i}: organization(ids: ["x"]) { edges { node { id } } }`).join(' ');
    assert.match(await refused(`{ ${lists} }`, 'query_too_complex'), /50 lists/);
  });

  it('a query of more than 10000 tokens stops the parser, and one repeating a field too often the validation', async () => {
    assert.match(await refused(`{ ${'__typename '.repeat(10001)} }`, 'query_too_large'), /10000 tokens/);
    await refused(`{ organization { edges { node { ${'a: name '.repeat(3000)} } } } }`, 'query_too_complex');
  });

  it('an answer that would hold more than 100000 records (relationships walked back and forth) is refused, and the server answers on', async () => {
    const cycle = (inner: string) => `workspace { edges { node { organization { edges { node { ${inner} } } } } } }`;
    const query = `{ organization(ids: [${literal(organization)}]) { edges { node { ${cycle(cycle('workspace { edges { node { id } } }'))} } } } }`;
    const response = await graphql(context.server, query);
    assertGraphQLErrors(response, 200, 'records');
    assert.equal(response.body.data, undefined);
    assert.equal(response.body.errors[0].extensions.code, 'response_too_large');
    const after = await data(context.server, `{ organization(ids: [${literal(organization)}]) { edges { node { name } } } }`);
    assert.equal(after.organization.edges[0].node.name, 'wide');
  });

  it('a mutation writing more than 100 records is refused as a whole', async () => {
    const records = Array.from({ length: 101 }, (_, i) => `{key: "K${i}", category: "ENV"}`).join(', ');
    const [workspace] = (await data(context.server, `{ workspace(first: 1) { edges { node { id } } } }`)).workspace.edges;
    const [error] = await errors(
      context.server,
      `mutation { workspace(ids: [${literal(workspace.node.id)}]) { edges { node { variable(op: UPSERT, data: [${records}]) { edges { node { id } } } } } } }`,
    );
    assert.equal(error?.extensions.code, 'query_too_complex');
    assert.equal(await context.server.countRows('variable', 'workspace_id', workspace.node.id), 0);
  });

  it('a body that is not a GraphQL request keeps its HTTP status, with errors in the GraphQL shape', async () => {
    const cases: [string, string, number][] = [
      ['{"query": ', 'application/json', 400],
      ['[{"query": "{ organization { edges { node { id } } } }"}]', 'application/json', 400],
      ['{}', 'application/json', 400],
      ['{"query": 12}', 'application/json', 400],
      ['{"query": "{ __typename }", "variables": "x"}', 'application/json', 400],
      ['{"query": "{ __typename }", "operationName": 1}', 'application/json', 400],
      ['', 'application/json', 400],
      ['query=%7B__typename%7D', 'application/x-www-form-urlencoded', 415],
      [`{"query": "${'x'.repeat(1024 * 1024)}"}`, 'application/json', 413],
    ];
    for (const [raw, contentType, status] of cases) assertGraphQLErrors(await post(context, raw, contentType), status, raw.slice(0, 40));
  });

  it('hostile queries and variables are answered with errors, never a 5xx or a trace', async () => {
    const cases: [string, Record<string, unknown>?, string?][] = [
      ['query Q($n: StringOrInt) { organization(first: $n) { edges { node { id } } } }', { n: 1.5 }],
      ['query Q($n: StringOrInt) { organization(first: $n) { edges { node { id } } } }', { n: '99999999999999999999999' }],
      ['query Q($f: String) { organization(filter: $f) { edges { node { id } } } }', { f: `name==${'('.repeat(50)}x` }],
      ['query Q($f: String) { organization(filter: $f) { edges { node { id } } } }', { f: 'name==a\u0000b' }],
      ['query Q($f: String) { organization(filter: $f) { edges { node { id } } } }', { f: 'x'.repeat(5000) }],
      ['query Q($i: [String]) { organization(ids: $i) { edges { node { id } } } }', { i: [null, 'x'] }],
      ['query Q($i: [String]) { organization(ids: $i) { edges { node { id } } } }', { i: 'not-a-list' }],
      ['{ organization(sort: "-,--,+") { edges { node { id } } } }'],
      ['{ organization(sort: "__proto__") { edges { node { __proto__ } } } }'],
      ['{ constructor { edges { node { id } } } }'],
      ['query A { __typename } query B { __typename }'],
      ['query A { __typename }', undefined, 'B'],
      [
        'mutation M($d: [OrganizationInput]) { organization(op: UPSERT, data: $d) { edges { node { id } } } }',
        { d: [{ name: 'x', nope: 1 }] },
      ],
      ['mutation M($d: [OrganizationInput]) { organization(op: UPSERT, data: $d) { edges { node { id } } } }', { d: [{ name: '\ud800' }] }],
      ['mutation { organization(op: UPSERT, data: {name: "a\\u0000b"}) { edges { node { id } } } }'],
      ['mutation { organization(op: UPDATE, data: {id: "../../etc", name: "x"}) { edges { node { id } } } }'],
      ['{ organization(after: "99999999999999") { edges { node { id } } } }'],
      ['subscription { organization { edges { node { id } } } }'],
    ];
    for (const [query, variables, operationName] of cases) {
      const response = await graphql(context.server, query, {
        ...(variables === undefined ? {} : { variables }),
        ...(operationName === undefined ? {} : { operationName }),
      });
      if (response.body?.errors !== undefined) assertGraphQLErrors(response, 200, query);
      else assert.equal(response.status, 200, query);
    }
    assert.equal((await context.server.get('/healthz')).status, 200);
    assert.deepEqual(
      context.server.logs.filter((line) => line.includes('"level":50')),
      [],
    );
  });
});

/**
 * A GraphQL document built to make its answer grow far beyond what it reads: aliases of leaves
 * (fragments and inline fragments spreading more of them, `@include` keeping them), records reached
 * again and again through relationships (a workspace's organization, and that organization's
 * workspaces), connections the UI asks for that are always empty, repeated `pageInfo`, and
 * `first` as large as it goes, in a literal or a variable.
 */
function amplifyingDocument(rng: Random): { query: string; variables: Record<string, unknown> } {
  const fragments: string[] = [];
  const leaf = () => rng.pick(['id', 'name', 'description', 'locked', 'branch', '__typename']);
  const aliases = (prefix: string, count: number) => {
    const field = leaf();
    const include = rng.chance(0.2) ? ' @include(if: $yes)' : '';
    return Array.from({ length: count }, (_, i) => `${prefix}${i}: ${field}${include}`).join(' ');
  };
  const first = () => rng.pick(['(first: 10000)', '(first: $many)', '(first: "10000")', '']);
  const workspaceNode = (depth: number): string => {
    const parts: string[] = [];
    for (let part = 0; part < 1 + rng.int(3); part++) {
      const kind = rng.weighted<string>([
        ['aliases', 4],
        ['fragment', 2],
        ['inline', 1],
        ['empty', 1],
        ['again', depth > 0 ? 3 : 0],
      ]);
      const size = rng.pick([1, 10, 100, 300]);
      const prefix = `${kind[0] ?? 'x'}${depth}_${part}_`;
      if (kind === 'aliases') parts.push(aliases(prefix, size));
      if (kind === 'inline') parts.push(`... on Workspace { ${aliases(prefix, size)} }`);
      if (kind === 'fragment') {
        const name = `F${fragments.length}`;
        fragments.push(`fragment ${name} on Workspace { ${aliases(prefix, size)} }`);
        parts.push(Array.from({ length: 1 + rng.int(3) }, () => `...${name}`).join(' '));
      }
      if (kind === 'empty') {
        const empty = Array.from(
          { length: 1 + rng.int(20) },
          (_, i) => `${prefix}${i}: access { edges { node { id name } } pageInfo { totalRecords } }`,
        );
        parts.push(empty.join(' '));
      }
      if (kind === 'again') {
        const back = `workspace${first()} { edges { ${Array.from({ length: 1 + rng.int(2) }, (_, i) => `n${i}: node { ${workspaceNode(depth - 1)} }`).join(' ')} } p0: pageInfo { totalRecords } p1: pageInfo { endCursor } }`;
        parts.push(`${prefix}o: organization { edges { node { id ${back} } } }`);
      }
    }
    return parts.join(' ');
  };
  const roots = Array.from(
    { length: 1 + rng.int(2) },
    (_, i) => `r${i}: workspace${first()} { edges { node { ${workspaceNode(rng.int(3))} } } pageInfo { totalRecords } }`,
  );
  const body = `{ ${roots.join(' ')} } ${fragments.join(' ')}`;
  // A variable declared and not used is a validation error.
  const variables = { many: 10000, yes: true };
  const declared = [body.includes('$many') ? '$many: StringOrInt' : '', body.includes('$yes') ? '$yes: Boolean!' : ''].filter(
    (d) => d !== '',
  );
  return {
    query: declared.length === 0 ? body : `query Amplify(${declared.join(', ')}) ${body}`,
    variables: Object.fromEntries(Object.entries(variables).filter(([name]) => body.includes(`$${name}`))),
  };
}

/** How a document built to amplify may be refused: by the limits of the document, or of the answer. */
const amplifyingRefusals = ['response_too_large', 'query_too_large', 'query_too_complex', 'query_too_deep'];

describeEachStore(
  'GraphQL documents built to amplify their answer',
  { env: { STRATUM_METRICS_PORT: '0', STRATUM_RESPONSE_MAX_MIB: '2', STRATUM_RESPONSE_MEMORY_MIB: '8' } },
  (context) => {
    let reader = '';

    before(async () => {
      const organization = await createOrganization(context.server);
      for (let i = 0; i < 40; i++) {
        await createWorkspace(context.server, organization, { name: `ws-${i}`, description: `${i} `.repeat(100) });
      }
      await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: 'readers', role: 'read' });
      reader = await context.server.token({ groups: ['readers'] });
    });

    it("are answered within the limits or refused, never a 5xx, and the server's memory stays bounded (its own metrics)", async (t) => {
      const seed = readSeed();
      const rng = new Random(seed);
      t.diagnostic(`seed ${seed} (replay: STRATUM_FUZZ_SEED=${seed})`);
      const documents = Array.from({ length: 48 }, () => amplifyingDocument(rng));
      const outcomes = new Map<string, number>();
      const { beforeMiB, peakMiB } = await memoryDuring(context.server, async () => {
        // Four at a time: they share the memory of answers.
        for (let start = 0; start < documents.length; start += 4) {
          const batch = documents.slice(start, start + 4);
          const responses = await Promise.all(
            batch.map((d) => graphql(context.server, d.query, { token: reader, variables: d.variables })),
          );
          for (const [index, response] of responses.entries()) {
            const what = `document ${start + index} of seed ${seed}`;
            assert.equal(response.status, 200, `${what}: ${response.text.slice(0, 300)}`);
            const codes: string[] = (response.body.errors ?? []).map((e: { extensions: { code: string } }) => e.extensions.code);
            for (const code of codes) assert.ok(amplifyingRefusals.includes(code), `${what}: ${response.text.slice(0, 300)}`);
            if (codes.length === 0) assert.ok(response.body.data !== undefined, what);
            const outcome = codes[0] ?? 'answered';
            outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
          }
        }
      });
      t.diagnostic(
        `${JSON.stringify(Object.fromEntries(outcomes))}; resident memory ${beforeMiB.toFixed(0)} MiB before, ${peakMiB.toFixed(0)} MiB at most`,
      );
      // 8 MiB of answers at once; without the count, a few of these documents take gigabytes.
      assert.ok(peakMiB - beforeMiB < 128, `resident memory went from ${beforeMiB.toFixed(0)} to ${peakMiB.toFixed(0)} MiB`);
      assert.ok((outcomes.get('response_too_large') ?? 0) > 0, 'no document outgrew the answer: the generator lost its point');
      assert.equal((await context.server.get('/healthz', { token: null })).status, 200);
      assert.deepEqual(
        context.server.logs.filter((line) => line.includes('"level":50')),
        [],
      );
    });
  },
);

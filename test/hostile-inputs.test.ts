import assert from 'node:assert/strict';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { after, before, it } from 'node:test';
import { TokenSigner } from '../src/auth/tokens.ts';
import {
  adminGroup,
  createCollection,
  createOrganization,
  createRecord,
  createTemplate,
  createVcs,
  createWorkspace,
  describeEachStore,
  providerBuild,
  writeFirstState,
  type TestServer,
} from './harness.ts';
import { GitServer } from './git-server.ts';
import { Random, readSeed } from './seeded-random.ts';

/**
 * Hostile inputs: every operation of /api/openapi.json (the JSON:API paths and the plain-JSON token
 * paths), called with generated hostile path parameters, query strings, bodies and headers.
 * Whatever a client sends, the service must answer below 500, answer every 4xx with a JSON:API
 * error document, never show a stack trace, a source position, SQL or a database error in a body,
 * and still answer /healthz and /readyz afterwards.
 *
 * Each store gets a budget of requests (STRATUM_FUZZ_REQUESTS, 6000 by default: 10 to 15 s per store
 * on a two-core machine), sent four at a time in rounds of 250 against a fresh fixture: two
 * organizations with a record of every type, so that path parameters are real ids as often as
 * mutated ones, and ids of the other organization are at hand. Deletes go last in each round.
 * Operations take turns, so every one of them gets its share; most requests carry one hostile part
 * and are otherwise valid, so that it gets past the checks of the others.
 *
 * The requests come from a seeded generator and depend on nothing else (ids are filled in when a
 * case is sent), so a failing run can be replayed:
 *   STRATUM_FUZZ_SEED=<seed> node --import tsx --test test/hostile-inputs.test.ts
 * and STRATUM_FUZZ_CASES=12,345 sends only those cases of the seed's sequence. What a request meets
 * on the database can still depend on the order in which concurrent requests ran.
 *
 * No 503 is allowed either: the database stays up throughout and no OIDC issuer is configured, so
 * none of the causes the README gives for a 503 can happen here; a 503 would be a failure the
 * service misclassified as the database being unavailable.
 */

const seed = readSeed();
const budget = readCount('STRATUM_FUZZ_REQUESTS', 6000);
const onlyCases = readCaseList();
/** Requests in flight at once: the machine the tests run on has two cores, shared. */
const concurrency = 4;
/** Requests against one fixture; every round gets fresh organizations, so deletes cannot starve later cases. */
const roundSize = 250;
const requestTimeoutMs = 15000;
/** Past this, no more cases are sent and the run fails with what it found so far, rather than the test timing out with nothing. */
const runDeadlineMs = 150000;

function readCount(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number, not ${text}`);
  return value;
}

function readCaseList(): ReadonlySet<number> | undefined {
  const text = process.env.STRATUM_FUZZ_CASES;
  if (text === undefined || text === '') return undefined;
  if (process.env.STRATUM_FUZZ_SEED === undefined) throw new Error('STRATUM_FUZZ_CASES names cases of a seed: set STRATUM_FUZZ_SEED too');
  const numbers = text.split(',').map((part) => Number(part.trim()));
  if (numbers.some((n) => !Number.isSafeInteger(n) || n < 0)) throw new Error(`STRATUM_FUZZ_CASES must list case numbers, not ${text}`);
  return new Set(numbers);
}

// ---------------------------------------------------------------------------------------------
// The operations and record types, as the API description gives them

interface AttributeSchema {
  name: string;
  /** JSON types the attribute takes: string, integer, boolean, null. */
  types: string[];
  enum: string[] | undefined;
  maxLength: number | undefined;
  minimum: number | undefined;
  maximum: number | undefined;
  readOnly: boolean;
  /** A secret: never read back, and never sorted or filtered on. */
  writeOnly: boolean;
}

interface RelationshipSchema {
  name: string;
  many: boolean;
  target: string;
}

interface TypeSchema {
  type: string;
  attributes: AttributeSchema[];
  /** Attributes (and `relationships.<name>`) a create requires, from the create schema. */
  required: string[];
  relationships: RelationshipSchema[];
}

interface TokenBodySchema {
  required: string[];
  properties: Record<string, { type?: string | string[]; maxLength?: number }>;
}

interface Operation {
  method: string;
  /** The path template, `/api/v1/organization/{organizationId}`. */
  path: string;
  params: string[];
  api: 'jsonapi' | 'token';
  /** The type of the record or collection the path ends at. */
  type: string;
  /** For `/relationships/{relationship}`: the type whose relationship it is. */
  relationshipOf: string | undefined;
  body:
    | { kind: 'resource'; type: string }
    | { kind: 'linkage' }
    | { kind: 'token'; schema: TokenBodySchema }
    | { kind: 'atomic'; mediaType: string }
    | undefined;
  list: boolean;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the API description is read as it comes */
function typesOf(description: any): Map<string, TypeSchema> {
  const schemas = description.components.schemas as Record<string, any>;
  const types = new Map<string, TypeSchema>();
  for (const name of Object.keys(schemas)) {
    // `{type}Input` is the shape of every write; `{type}CreateInput` marks what a create requires.
    const match = /^(.+)Input$/.exec(name);
    if (match?.[1] === undefined || name.endsWith('CreateInput')) continue;
    const type = match[1];
    const data = schemas[name].properties.data.properties;
    const properties = schemas[`${type}InputAttributes`].properties as Record<string, any>;
    // Secrets: write-only credentials, and values answers hold as null while a flag is set (neither is filtered or sorted on).
    const sealed = new Set(((schemas[`${type}Attributes`].allOf ?? []) as any[]).flatMap((rule) => Object.keys(rule.then.properties)));
    const attributes = Object.entries(properties).map(([attribute, schema]) => ({
      name: attribute,
      types: ([] as string[]).concat(schema.type ?? 'string'),
      enum: schema.enum as string[] | undefined,
      maxLength: schema.maxLength as number | undefined,
      minimum: schema.minimum as number | undefined,
      maximum: schema.maximum as number | undefined,
      readOnly: schema.readOnly === true,
      writeOnly: schema.writeOnly === true || sealed.has(attribute),
    }));
    const create = schemas[`${type}CreateInput`]?.properties.data.properties;
    const required = [
      ...((create?.attributes?.required ?? []) as string[]),
      ...((create?.relationships?.required ?? []) as string[]).map((relationship) => `relationships.${relationship}`),
    ];
    const relationships = Object.entries((data.relationships?.properties ?? {}) as Record<string, any>).map(([relationship, schema]) => {
      const linkage = schema.properties.data;
      const many = linkage.type === 'array';
      const target = String(many ? linkage.items.properties.type.const : linkage.oneOf[0].properties.type.const);
      return { name: relationship, many, target };
    });
    types.set(type, { type, attributes, required: required.filter((r) => r !== ''), relationships });
  }
  return types;
}

/** The type a path parameter like `{workspaceId}` names. */
const typeOfParameter = (parameter: string) => parameter.replace(/Id$/, '');

function operationsOf(description: any): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(description.paths as Record<string, Record<string, any>>)) {
    const segments = path.split('/');
    const relationship = segments.at(-2) === 'relationships';
    const last = (relationship ? segments.at(-3) : segments.at(-1)) ?? '';
    const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');
    const api = path.startsWith('/api/v1/') ? 'jsonapi' : 'token';
    const type = last.startsWith('{') ? typeOfParameter(last.slice(1, -1)) : last;
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const content = operation.requestBody?.content as Record<string, { schema: any }> | undefined;
      const schema = content === undefined ? undefined : Object.values(content)[0]?.schema;
      let body: Operation['body'];
      const mediaType = content === undefined ? undefined : Object.keys(content)[0];
      if (mediaType?.includes('ext=') === true) {
        // Atomic operations: a document of operations on the other paths.
        body = { kind: 'atomic', mediaType };
      } else if (schema !== undefined) {
        const ref = typeof schema.$ref === 'string' ? /([^/]+?)(Create)?Input$/.exec(schema.$ref)?.[1] : undefined;
        if (ref !== undefined) body = { kind: 'resource', type: ref };
        else if (schema.properties !== undefined)
          body = { kind: 'token', schema: { required: schema.required ?? [], properties: schema.properties } };
        else body = { kind: 'linkage' };
      }
      const list = ((operation.parameters ?? []) as { name: string }[]).some((p) => p.name === 'filter');
      operations.push({
        method: method.toUpperCase(),
        path,
        params,
        api,
        type,
        relationshipOf: relationship ? type : undefined,
        body,
        list,
      });
    }
  }
  return operations;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

// ---------------------------------------------------------------------------------------------
// The fixture: two organizations with a record of every type, and the callers

type CallerKind = 'administrator' | 'member with every permission' | 'member who may only read' | 'holder of a grant' | 'outsider';

interface Organization {
  /** One record of every type, by type (the workspace links the VCS connection, the reference the workspace). */
  ids: Record<string, string>;
  /** A second workspace, which no reference attaches yet. */
  spareWorkspace: string;
}

interface Fixture {
  own: Organization;
  foreign: Organization;
  tokens: Record<CallerKind, string>;
  /** Tokens that must be refused. */
  stranger: string;
  expired: string;
  revoked: string;
  memberGroup: string;
  tokenKey: string;
}

type Side = 'own' | 'foreign';

/** An organization with a record of every type: `groups` name its teams, `grantee` a group granted its workspace and project. */
async function organizationWithEverything(
  server: TestServer,
  groups: string[],
  grantee: string,
  moduleSource: string,
): Promise<Organization> {
  const organization = await createOrganization(server);
  const workspace = await createWorkspace(server, organization);
  const spareWorkspace = await createWorkspace(server, organization);
  const vcs = await createVcs(server, organization);
  const linked = await server.request('PATCH', `/api/v1/organization/${organization}/workspace/${workspace}/relationships/vcs`, {
    body: { data: { type: 'vcs', id: vcs } },
  });
  if (linked.status !== 204) throw new Error(`linking the VCS connection answered ${linked.status}: ${linked.text}`);
  const collection = await createCollection(server, organization);
  const teams: string[] = [];
  for (const [index, group] of groups.entries()) {
    teams.push(
      await createRecord(server, `/api/v1/organization/${organization}/team`, 'team', {
        name: group,
        role: index === 0 ? 'admin' : 'read',
      }),
    );
  }
  const ids: Record<string, string> = {
    organization,
    workspace,
    vcs,
    collection,
    team: teams[0] ?? '',
    template: await createTemplate(server, organization),
    variable: await createRecord(server, `/api/v1/workspace/${workspace}/variable`, 'variable', {
      key: 'SECRET',
      value: 'hidden',
      category: 'ENV',
      sensitive: true,
    }),
    item: await createRecord(server, `/api/v1/organization/${organization}/collection/${collection}/item`, 'item', {
      key: 'k',
      value: 'v',
      category: 'TERRAFORM',
    }),
    reference: await createRecord(
      server,
      `/api/v1/organization/${organization}/collection/${collection}/reference`,
      'reference',
      {},
      { relationships: { workspace: { data: { type: 'workspace', id: workspace } } } },
    ),
  };
  // The records the web UI's pages load, the workspace linking those it can link.
  const under = (type: string, attributes: Record<string, unknown>) =>
    createRecord(server, `/api/v1/organization/${organization}/${type}`, type, attributes);
  ids.project = await under('project', { name: 'project' });
  ids.tag = await under('tag', { name: 'tag' });
  ids.globalvar = await under('globalvar', { key: 'SECRET', value: 'hidden', category: 'ENV', sensitive: true });
  ids.ssh = await under('ssh', { name: 'key', sshType: 'rsa', privateKey: 'hidden' });
  ids.agent = await under('agent', { name: 'pool', url: 'http://agent.example' });
  ids.workspacetag = await createRecord(server, `/api/v1/workspace/${workspace}/workspaceTag`, 'workspacetag', { tagId: ids.tag });
  ids.schedule = await createRecord(server, `/api/v1/workspace/${workspace}/schedule`, 'schedule', { cron: '0 0 12 * * ?' });
  // A webhook and its event, named by their client as the web UI names them.
  ids.webhook = await createRecord(server, `/api/v1/workspace/${workspace}/webhook`, 'webhook', {}, { id: randomUUID() });
  ids.webhook_event = await createRecord(
    server,
    `/api/v1/workspace/${workspace}/webhook/${ids.webhook}/events`,
    'webhook_event',
    { event: 'PUSH', branch: 'main', path: 'modules/.*' },
    { id: randomUUID() },
  );
  // A state version, written as Terraform writes one: the state backend makes its history record.
  ids.history = await writeFirstState(server, organization, workspace);
  ids.notification_configuration = await createRecord(
    server,
    `/api/v1/organization/${organization}/workspace/${workspace}/notificationConfiguration`,
    'notification_configuration',
    { name: 'alerts', channelType: 'WEBHOOK', destinationUrl: 'http://10.0.0.1/hook', signingSecret: 'hidden' },
  );
  // A failed delivery, refused before any connection (a private address no setting lists).
  await server.post(`/notification/v1/configuration/${ids.notification_configuration}/test`, {});
  const [delivery] = (await server.get(`/notification/v1/workspace/${workspace}/deliveries`)).body as { id: string }[];
  ids.delivery = delivery?.id ?? '';
  ids.notification_trigger = await createRecord(
    server,
    `/api/v1/notification_configuration/${ids.notification_configuration}/triggers`,
    'notification_trigger',
    { jobStatus: 'failed' },
  );
  // A job of the workspace, with the step of its template's flow.
  const flow = await createTemplate(server, organization, {
    tcl: Buffer.from('flow:\n  - type: terraformPlan\n    step: 100\n').toString('base64'),
  });
  ids.job = await createRecord(
    server,
    `/api/v1/organization/${organization}/job`,
    'job',
    { templateReference: flow },
    { relationships: { workspace: { data: { type: 'workspace', id: workspace } } } },
  );
  ids.step = String(((await server.get(`/api/v1/organization/${organization}/job/${ids.job}/step`)).body.data as { id: string }[])[0]?.id);
  // The private registry: a module published from the loopback repository, and a provider with a build.
  ids.module = await under('module', { name: 'network', provider: 'aws', source: moduleSource });
  ids.module_version = await createRecord(server, `/api/v1/organization/${organization}/module/${ids.module}/version`, 'module_version', {
    version: '0.0.1',
  });
  ids.provider = await under('provider', { name: 'random' });
  ids.version = await createRecord(server, `/api/v1/organization/${organization}/provider/${ids.provider}/version`, 'version', {
    versionNumber: '1.0.0',
  });
  ids.implementation = await createRecord(
    server,
    `/api/v1/organization/${organization}/provider/${ids.provider}/version/${ids.version}/implementation`,
    'implementation',
    providerBuild,
  );
  // The registry protocols name records by names, not ids: the organization's name is the namespace.
  ids.namespace = String((await server.get(`/api/v1/organization/${organization}`)).body.data.attributes.name);
  ids.name = 'network';
  ids.type = 'random';
  ids.os = 'linux';
  ids.arch = 'amd64';
  // Records of no organization, one set beside each organization's records.
  ids.action = `hostile.${randomBytes(8).toString('hex')}`;
  const action = await server.post('/api/v1/action', {
    data: {
      type: 'action',
      id: ids.action,
      attributes: { name: 'a', label: 'a', category: 'c', type: 'Workspace/Action', action: 'e30=', version: '1.0.0' },
    },
  });
  if (action.status !== 201) throw new Error(`creating an action answered ${action.status}: ${action.text}`);
  ids.federated = await createRecord(server, '/api/v1/federated', 'federated', {
    name: `f-${randomBytes(8).toString('hex')}`,
    issuerUrl: 'https://issuer.example',
  });
  ids.federated_claim = await createRecord(server, `/api/v1/federated/${ids.federated}/claims`, 'federated_claim', {
    claimKey: 'k',
    claimValue: 'v',
  });
  ids.access = await createRecord(server, `/api/v1/workspace/${workspace}/access`, 'access', { name: grantee, role: 'write' });
  ids.project_access = await createRecord(
    server,
    `/api/v1/organization/${organization}/project/${ids.project}/projectAccess`,
    'project_access',
    { name: grantee, role: 'write' },
  );
  for (const type of ['project', 'ssh', 'agent']) {
    const linked = await server.request('PATCH', `/api/v1/workspace/${workspace}/relationships/${type}`, {
      body: { data: { type, id: ids[type] } },
    });
    if (linked.status !== 204) throw new Error(`linking the ${type} answered ${linked.status}: ${linked.text}`);
  }
  // A change of the organization's audit trail, and one of the whole service's.
  for (const [type, path] of [
    ['audit_event', `/api/v1/organization/${organization}/auditEvent?page[size]=1`],
    ['audit_trail', '/api/v1/audit_trail?page[size]=1'],
  ] as const) {
    const [change] = (await server.get(path)).body.data as { id: string }[];
    if (change === undefined) throw new Error(`no ${type} record at ${path}`);
    ids[type] = change.id;
  }
  return { ids, spareWorkspace };
}

async function makeFixture(server: TestServer, round: number, stranger: string, moduleSource: string): Promise<Fixture> {
  const memberGroup = `hostile-${seed}-${round}-members`;
  const readerGroup = `hostile-${seed}-${round}-readers`;
  const granteeGroup = `hostile-${seed}-${round}-grantees`;
  const own = await organizationWithEverything(server, [memberGroup, readerGroup], granteeGroup, moduleSource);
  const foreign = await organizationWithEverything(
    server,
    [`hostile-${seed}-${round}-foreign`],
    `hostile-${seed}-${round}-foreign-grantees`,
    moduleSource,
  );
  const teamToken = await server.post('/access-token/v1/teams', { description: 'hostile', days: 1, group: memberGroup });
  const personalToken = await server.post('/pat/v1', { description: 'hostile', days: 1 });
  const revokedToken = await server.post('/access-token/v1/teams', { description: 'revoked', days: 1, group: memberGroup });
  for (const created of [teamToken, personalToken, revokedToken]) {
    if (created.status !== 201) throw new Error(`creating a token answered ${created.status}: ${created.text}`);
  }
  const revoked = await server.delete(`/access-token/v1/teams/${String(revokedToken.body.id)}`);
  if (revoked.status !== 202) throw new Error(`revoking a token answered ${revoked.status}: ${revoked.text}`);
  own.ids.token = String(teamToken.body.id);
  foreign.ids.token = String(personalToken.body.id);
  return {
    own,
    foreign,
    tokens: {
      administrator: server.adminToken,
      'member with every permission': await server.token({ groups: [memberGroup] }),
      'member who may only read': await server.token({ groups: [readerGroup] }),
      'holder of a grant': await server.token({ groups: [granteeGroup] }),
      outsider: await server.token({ groups: [`hostile-${seed}-${round}-outsiders`] }),
    },
    stranger,
    expired: await server.token({ groups: [adminGroup], ttlSeconds: -60 }),
    revoked: String(revokedToken.body.token),
    memberGroup,
    tokenKey: server.env.STRATUM_TOKEN_KEY ?? '',
  };
}

// ---------------------------------------------------------------------------------------------
// Cases: what is sent, built from choices drawn when the case is generated

interface Wire {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string | string[]>;
  body: string | undefined;
  chunked: boolean;
}

/** What a case needs to turn into a request: the round's fixture, and the ids its path names. */
interface Resolution {
  fixture: Fixture;
  /** The path parameters as sent. */
  params: Record<string, string>;
}

interface Case {
  no: number;
  operation: Operation;
  caller: CallerKind;
  /** The hostile choices, for the report. */
  what: string[];
  build: (fixture: Fixture) => Wire;
}

const idOf = (fixture: Fixture, side: Side, type: string): string => {
  const id = fixture[side].ids[type];
  if (id === undefined) throw new Error(`no ${side} ${type} in the fixture`);
  return id;
};

/** A value built when the case is sent, from choices drawn when it was generated. */
type Late<T> = (resolution: Resolution) => T;

/** Names of built-in JavaScript properties, which a lookup by name must never reach. */
const builtins = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'prototype', '__defineGetter__', 'isPrototypeOf'];
/** Relationship names Terrakube clients use that Stratum does not model. */
const unmodeled = ['project', 'agent', 'job', 'history', 'workspaceTag'];

const hostileSegments: string[] = [
  'not-a-uuid',
  '0',
  '-1',
  '1e309',
  'NaN',
  'null',
  'undefined',
  'true',
  '%00',
  'a%00b',
  '..',
  '.',
  '%2e%2e',
  '%2E',
  '%2F',
  '..%2F..%2Fetc%2Fpasswd',
  '%252e%252e',
  '%E2%98%83',
  '%F0%9F%92%A9',
  '%C3%A9t%C3%A9',
  '%E0%A4%A',
  '%',
  '%zz',
  '%C0%AE%C0%AE',
  '%FF%FE',
  '%EF%BB%BF',
  '%E2%80%AE',
  '%ED%A0%80',
  '%0A',
  '%0D%0A',
  '%09',
  "'",
  '%22',
  '%27%20OR%20%271%27%3D%271',
  '*',
  '%2A',
  '%20',
  '+',
  ';',
  ',',
  '$',
  '@',
  '~',
  '!',
  '(',
  ')',
  '%5B%5D',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '9'.repeat(40),
  'x'.repeat(256),
  'x'.repeat(257),
  'x'.repeat(3000),
  ...builtins,
];

/** Percent-encodes every character but the unreserved ones; a lone surrogate becomes the bytes UTF-8 would give it if it could. */
const percentEncoded = (text: string) =>
  (text.match(/[\ud800-\udbff][\udc00-\udfff]|[\s\S]/g) ?? [])
    .map((character) => {
      const unit = character.charCodeAt(0);
      if (character.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
        return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
          .map((b) => `%${b.toString(16).toUpperCase()}`)
          .join('');
      }
      return encodeURIComponent(character).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    })
    .join('');

/** A query value as sent: percent-encoded, but with the characters of the API's syntax left readable. */
const queryValue = (text: string) =>
  percentEncoded(text).replace(/%(5B|5D|2C|3D|3B|3A|28|29|21|2A|27)/g, (whole) => decodeURIComponent(whole));
const queryKey = (text: string) => percentEncoded(text).replace(/%(5B|5D)/g, (whole) => decodeURIComponent(whole));
const pair = (key: string, value: string) => `${queryKey(key)}=${queryValue(value)}`;

function pathValue(rng: Random, operation: Operation, param: string, types: Map<string, TypeSchema>): [string, Late<string>] {
  const type = typeOfParameter(param);
  if (param === 'relationship') {
    const owner = types.get(operation.relationshipOf ?? '');
    const names = [
      ...(owner?.relationships.map((r) => r.name) ?? []),
      ...[...types.values()].flatMap((t) => t.relationships.map((r) => r.name)),
      ...unmodeled,
      ...builtins,
      'relationships',
      'nothing',
    ];
    const choice = rng.chance(0.5) ? rng.pick(names) : rng.pick(hostileSegments);
    return [choice, () => choice];
  }
  const otherTypes = [...types.keys(), 'token'].filter((t) => t !== type);
  const other = rng.pick(otherTypes);
  const uuid = rng.uuid();
  const suffix = rng.pick(['x', '%00', '%20', '%2F..', '0', '%E2%80%8B']);
  const choices: [string, Late<string>][] = [
    [`id of a ${other}`, ({ fixture }) => idOf(fixture, 'own', other)],
    ['id of another organization', ({ fixture }) => idOf(fixture, 'foreign', type)],
    ['unknown uuid', () => uuid],
    ['id in upper case', ({ fixture }) => idOf(fixture, 'own', type).toUpperCase()],
    [`id followed by ${suffix}`, ({ fixture }) => `${idOf(fixture, 'own', type)}${suffix}`],
    ['id without its dashes', ({ fixture }) => idOf(fixture, 'own', type).replace(/-/g, '')],
  ];
  if (rng.chance(0.4)) {
    const [label, value] = rng.pick(choices);
    return [label, value];
  }
  const literal = rng.pick(hostileSegments);
  return [literal.length > 40 ? `${literal.slice(0, 12)}... (${literal.length} characters)` : literal, () => literal];
}

/** The path's own ids, consistent with each other: the records of the own organization. */
function ownPathValue(operation: Operation, param: string, types: Map<string, TypeSchema>, rng: Random): Late<string> {
  if (param === 'relationship') {
    const owner = types.get(operation.relationshipOf ?? '');
    const names = owner?.relationships.map((r) => r.name) ?? [];
    const name = rng.chance(0.15) ? rng.pick(unmodeled) : rng.pick(names.length > 0 ? names : unmodeled);
    return () => name;
  }
  const type = typeOfParameter(param);
  return ({ fixture }) => idOf(fixture, 'own', type);
}

// ----- query strings

function queryParts(rng: Random, operation: Operation, types: Map<string, TypeSchema>): [string, string][] {
  const typeNames = [...types.keys()];
  const schema = types.get(operation.type) ?? rng.pick([...types.values()]);
  const attributes = schema.attributes.map((a) => a.name);
  const relationships = schema.relationships.map((r) => r.name);
  const anyType = () => rng.pick(typeNames);
  const name = () =>
    rng.pick([
      ...attributes,
      ...relationships,
      ...builtins,
      'id',
      'nothing',
      '',
      'organization.name',
      ...attributes.map((a) => `-${a}`),
      '-constructor',
      '+__proto__',
      '--name',
      '-',
    ]);
  const names = () => Array.from({ length: 1 + rng.int(4) }, name).join(',');
  const parts: [string, string][] = [];
  const count = rng.count();
  for (let i = 0; i < count; i++) {
    const choice = rng.int(16);
    switch (choice) {
      case 0: {
        const key = rng.pick([
          ...builtins,
          'bogus',
          'page',
          'fields',
          'filter[]',
          'a[b][c][d][e][f][g][h]',
          '',
          '[',
          ']',
          'sort[',
          'include[0]',
        ]);
        parts.push([`unknown parameter ${key}`, pair(key, rng.pick(['1', '', 'x']))]);
        break;
      }
      case 1: {
        const key = rng.pick(['sort', 'include', 'filter', 'page[size]', `fields[${schema.type}]`, `filter[${schema.type}]`, ...builtins]);
        parts.push([`repeated ${key}`, `${pair(key, 'name')}&${pair(key, 'id')}`]);
        break;
      }
      case 2:
        parts.push(['sort', pair('sort', names())]);
        break;
      case 3: {
        const type = rng.pick([...typeNames, ...builtins, 'nothing', '']);
        parts.push([`fields[${type}]`, pair(`fields[${type}]`, names())]);
        break;
      }
      case 4: {
        const path = Array.from({ length: 1 + rng.int(rng.chance(0.2) ? 40 : 3) }, () =>
          rng.pick([...relationships, ...builtins, ...unmodeled, 'organization', 'workspace', 'variable', 'vcs', 'nothing']),
        ).join('.');
        parts.push(['include', pair('include', rng.chance(0.3) ? `${path},${names()}` : path)]);
        break;
      }
      case 5:
      case 6:
      case 7: {
        const key = rng.chance(0.6) ? 'filter' : `filter[${rng.pick([schema.type, anyType(), ...builtins, 'nothing', ''])}]`;
        const expression = rsql(rng, schema, types);
        parts.push([`${key}=${clip(expression, 60)}`, pair(key, expression)]);
        break;
      }
      case 8:
      case 9: {
        const key = rng.pick([
          'page[number]',
          'page[size]',
          'page[offset]',
          'page[limit]',
          'page[totals]',
          'page[constructor]',
          'page[]',
          'page[number][x]',
        ]);
        const value = rng.pick([
          '0',
          '-1',
          '1.5',
          'abc',
          '',
          '1e3',
          '0x10',
          ' 1',
          '+1',
          '10001',
          '99999999999999999999',
          '9007199254740991',
          '9007199254740992',
          '900719925474',
          '900719925475',
          '2147483648',
          '１',
          '1\u0000',
        ]);
        const mixed = rng.chance(0.2) ? `&${pair(rng.pick(['page[offset]', 'page[number]']), '1')}` : '';
        parts.push([`${key}=${value}`, `${pair(key, value)}${mixed}`]);
        break;
      }
      case 10: {
        const key = rng.pick(['sort', 'include', 'filter', `fields[${schema.type}]`, 'page[size]', 'bogus']);
        parts.push([`NUL in ${key}`, `${queryKey(key)}=${rng.pick(['%00', 'name%00', '%00%00', 'a%00b'])}`]);
        break;
      }
      case 11: {
        const key = rng.pick(['sort', 'include', 'filter', `fields[${schema.type}]`, 'bogus']);
        const length = rng.pick([300, 5000, 12000, 20000]);
        parts.push([`${key} of ${length} characters`, pair(key, 'n'.repeat(length))]);
        break;
      }
      case 12: {
        const depth = rng.pick([11, 50, 300]);
        const key = rng.chance(0.5) ? 'filter' : `${'a['.repeat(depth)}${']'.repeat(depth)}`;
        const value = key === 'filter' ? `${'('.repeat(depth)}name==x${')'.repeat(depth)}` : '1';
        parts.push([`nesting ${depth} deep in ${key === 'filter' ? 'filter' : 'a key'}`, pair(key, value)]);
        break;
      }
      case 13: {
        const raw = rng.pick([
          '%',
          '%zz',
          '%E0%A4%A',
          '%FF',
          '&&&',
          '=',
          '==',
          '&=&',
          'sort',
          'sort&sort',
          '%C0%AE',
          'filter=%',
          'include=%ED%A0%80',
        ]);
        parts.push([`malformed query ${raw}`, raw]);
        break;
      }
      case 14: {
        const text = rng.pick(['\u2603', '\u{1F4A9}', '\u202E', '\u200B', 'e\u0301', '\uFEFF', '\u2028']);
        const key = rng.pick(['sort', 'include', `fields[${schema.type}]`, 'filter']);
        parts.push([`unicode in ${key}`, pair(key, key === 'filter' ? `name==${text}` : text)]);
        break;
      }
      default: {
        const key = rng.pick(['sort', 'include', 'fields', 'filter']);
        parts.push([`${key}[] array syntax`, `${queryKey(`${key}[]`)}=a&${queryKey(`${key}[]`)}=b`]);
        break;
      }
    }
  }
  return parts;
}

/** A path of relationships to include, valid at every step, up to `depth` steps deep. */
function includePath(rng: Random, type: TypeSchema, types: Map<string, TypeSchema>, depth: number): string {
  const steps: string[] = [];
  let at: TypeSchema | undefined = type;
  for (let i = 0; i < depth && at !== undefined && at.relationships.length > 0; i++) {
    const relationship = rng.pick(at.relationships);
    steps.push(relationship.name);
    at = types.get(relationship.target);
  }
  return steps.join('.');
}

/** Values of the right form for a filter on the attribute, at the edges of what the stores hold. */
function edgeFilterValues(attribute: AttributeSchema): string[] {
  if (attribute.types.includes('integer')) {
    return ['2147483647', '2147483648', '-2147483648', '-2147483649', '99999999999999999999', '9223372036854775808', '0', '-0'];
  }
  if (attribute.types.includes('boolean')) return ['true', 'false'];
  if (attribute.name.endsWith('Date')) {
    return [
      '+275760-09-13T00:00:00.000Z',
      '-271821-04-20T00:00:00.000Z',
      '0001-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
      '1970-01-01',
      '2024-02-30',
    ];
  }
  return [
    "'a\u0000b'",
    "'\u0000'",
    '*',
    "'*\u0000*'",
    "'[a-z]*'",
    "'?'",
    "'%'",
    "'_'",
    "'\\'",
    "'*\\'",
    "'\\*'",
    "''",
    '"\u2603\u{1F4A9}\u202E"',
    "'\ud800'",
    "'e\u0301'",
    `'${'n'.repeat(4000)}'`,
    ...(attribute.enum ?? []),
  ];
}

/**
 * Query parameters each of which the API accepts, with values at the edges: the request gets past
 * parsing and runs its query on the database.
 */
function edgeQueryParts(rng: Random, operation: Operation, types: Map<string, TypeSchema>): [string, string][] {
  const type = types.get(operation.type) ?? rng.pick([...types.values()]);
  const readable = type.attributes.filter((a) => !a.writeOnly);
  const parts: [string, string][] = [];
  for (let i = rng.count(); i > 0; i--) {
    const choice = rng.int(operation.list ? 6 : 2);
    if (choice === 0) {
      const path = includePath(rng, type, types, 1 + rng.int(rng.chance(0.3) ? 8 : 3));
      if (path !== '') parts.push([`include=${path}`, pair('include', path)]);
    } else if (choice === 1) {
      const target = types.get(rng.pick([type.type, ...type.relationships.map((r) => r.target)])) ?? type;
      const names = [...target.attributes.map((a) => a.name), ...target.relationships.map((r) => r.name)];
      const value = rng.chance(0.2)
        ? ''
        : rng
            .shuffle([...names])
            .slice(0, 1 + rng.int(4))
            .join(',');
      parts.push([`fields[${target.type}]=${value}`, pair(`fields[${target.type}]`, value)]);
    } else if (choice === 2) {
      const value = rng
        .shuffle([...readable])
        .slice(0, 1 + rng.int(3))
        .map((a) => `${rng.chance(0.5) ? '-' : ''}${a.name}`)
        .join(',');
      parts.push([`sort=${value}`, pair('sort', value)]);
    } else if (choice === 3) {
      const page = rng.pick([
        'page[size]=10000',
        'page[size]=1&page[number]=900719925474',
        'page[size]=10000&page[number]=900719925474',
        'page[offset]=9007199254740991&page[limit]=10000',
        'page[offset]=0&page[limit]=1',
        'page[number]=2&page[size]=1&page[totals]',
        'page[totals]=',
      ]);
      parts.push([page, page]);
    } else {
      const [label, expression] = edgeFilter(rng, type, types);
      const typed = rng.chance(0.3);
      const key = typed ? `filter[${type.type}]` : 'filter';
      parts.push([`${key} ${label}`, pair(key, expression)]);
    }
  }
  return parts;
}

/** One comparison the filter grammar accepts, on a readable attribute or through a to-one link. */
function edgeFilter(rng: Random, type: TypeSchema, types: Map<string, TypeSchema>): [string, string] {
  let owner = type;
  let prefix = '';
  const toOne = type.relationships.filter((r) => !r.many);
  if (toOne.length > 0 && rng.chance(0.25)) {
    const link = rng.pick(toOne);
    owner = types.get(link.target) ?? type;
    prefix = `${link.name}.`;
  }
  const readable = owner.attributes.filter((a) => !a.writeOnly);
  const attribute = rng.pick(readable);
  const values = edgeFilterValues(attribute);
  const textual = attribute.types.includes('string') && !attribute.name.endsWith('Date');
  const boolean = attribute.types.includes('boolean');
  const operators = [
    '==',
    '!=',
    '=in=',
    '=out=',
    '=isnull=',
    ...(boolean ? [] : ['=lt=', '=le=', '=gt=', '=ge=']),
    ...(textual ? ['=ini='] : []),
  ];
  const operator = rng.pick(operators);
  let value: string;
  if (operator === '=isnull=') value = rng.pick(['true', 'false']);
  else if (operator === '=in=' || operator === '=out=' || operator === '=ini=') {
    value = `(${Array.from({ length: 1 + rng.int(rng.chance(0.2) ? 200 : 4) }, () => rng.pick(values)).join(',')})`;
  } else value = rng.pick(values);
  const expression = `${prefix}${attribute.name}${operator}${value}`;
  return [clip(expression, 60), expression];
}

/** An RSQL expression, more often malformed or hostile than not. */
function rsql(rng: Random, schema: TypeSchema, types: Map<string, TypeSchema>): string {
  if (rng.chance(0.2)) {
    return rng.pick([
      'name==',
      '==x',
      'name=~(',
      '(((',
      ')))',
      'name=in=(',
      'name=in=()',
      'name==a;',
      ';',
      ',',
      'and',
      'name=foo=bar',
      'name=="unterminated',
      "name=='unterminated",
      'name==a,,',
      'name==a;;name==b',
      '()',
      'name==(a,b)',
      'name!=',
      'name=isnull=',
      'name==\\',
      "name=='\\'",
      'name===x',
      'name=',
      'a.b.c.d.e.f==1',
      Array.from({ length: 101 }, (_, i) => `name==v${i}`).join(';'),
      `name=in=(${Array.from({ length: 1500 }, (_, i) => `v${i}`).join(',')})`,
      `name==${'v'.repeat(4097)}`,
    ]);
  }
  const comparisons = 1 + rng.int(3);
  const parts: string[] = [];
  for (let i = 0; i < comparisons; i++) parts.push(comparison(rng, schema, types));
  let text = parts[0] ?? '';
  for (const part of parts.slice(1)) text = `${text}${rng.pick([';', ',', ' and ', ' or '])}${part}`;
  if (rng.chance(0.2)) text = `(${text})`;
  return text;
}

function comparison(rng: Random, schema: TypeSchema, types: Map<string, TypeSchema>): string {
  const attribute = rng.chance(0.8) ? rng.pick(schema.attributes) : undefined;
  const toOne = schema.relationships.filter((r) => !r.many);
  let selector: string;
  if (attribute !== undefined) selector = attribute.name;
  else if (toOne.length > 0 && rng.chance(0.5)) {
    const link = rng.pick(toOne);
    const target = types.get(link.target);
    selector = `${link.name}.${rng.pick([...(target?.attributes.map((a) => a.name) ?? []), ...builtins, 'nothing', 'id'])}`;
  } else
    selector = rng.pick([...builtins, 'id', 'nothing', 'organization.organization.name', 'vcs.clientSecret', 'workspace.organization.id']);
  const operator = rng.pick(['==', '!=', '=lt=', '=le=', '=gt=', '=ge=', '<', '>=', '=in=', '=out=', '=ini=', '=isnull=', '=foo=', '=IN=']);
  const integer = attribute?.types.includes('integer') === true;
  const values = integer
    ? [
        '2147483648',
        '-2147483649',
        '99999999999999999999',
        '9007199254740993',
        '-9223372036854775809',
        '1e3',
        '1.5',
        '0x10',
        '-0',
        '0',
        '2147483647',
        'abc',
        'true',
      ]
    : [
        'x',
        '*',
        '**',
        '*x*',
        '%',
        '_',
        '\\',
        '[',
        '?',
        '[a-z]*',
        'true',
        'false',
        'TRUE',
        'maybe',
        '2024-01-01',
        '2024-13-45T99:99:99Z',
        '+275760-09-13T00:00:00.000Z',
        '-271821-04-20T00:00:00.000Z',
        '275760-09-14',
        '0',
        '99999999999999999999',
        '"quoted value"',
        "'quoted'",
        '"\\"escaped\\""',
        'a\u0000b',
        '\u2603\u{1F4A9}',
        '\u202E',
        'n'.repeat(rng.pick([100, 3000])),
        ...builtins,
      ];
  const value = () => rng.pick(values);
  if (operator === '=in=' || operator === '=out=' || operator === '=ini=' || rng.chance(0.1)) {
    const list = Array.from({ length: 1 + rng.int(4) }, value);
    if (integer && rng.chance(0.5)) list.push('99999999999999999999');
    return `${selector}${operator}(${list.join(',')})`;
  }
  return `${selector}${operator}${value()}`;
}

// ----- bodies

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** An object whose keys are all own properties, `__proto__` included. */
function own(entries: [string, Json][]): { [key: string]: Json } {
  return Object.fromEntries(entries);
}

/** Sets an own property, even one named `__proto__`. */
function setOwn(target: { [key: string]: Json }, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A text attribute that no declaration names: a field of a token request, or an unknown attribute. */
function textAttribute(name: string, maxLength: number | undefined): AttributeSchema {
  return { name, types: ['string'], enum: undefined, maxLength, minimum: undefined, maximum: undefined, readOnly: false, writeOnly: false };
}

/** Raw JSON number literals JavaScript cannot hold as they are written. */
const rawNumbers = [
  '9007199254740993',
  '1e400',
  '-1e400',
  '123456789012345678901234567890',
  '1.0',
  '-0',
  '1E2',
  '0.1e-400',
  '2147483648.0',
];
/** JSON texts JavaScript values cannot be serialized to, spliced in where a value holds their marker. */
const rawLiterals: Record<string, string> = {
  ...Object.fromEntries(rawNumbers.map((literal) => [literal, literal])),
  'nested arrays': `${'['.repeat(100000)}${']'.repeat(100000)}`,
  'nested objects': `${'{"a":'.repeat(50000)}1${'}'.repeat(50000)}`,
};
const rawMarker = (name: string) => `@@raw ${name}@@`;
const withRawNumbers = (text: string) => text.replace(/"@@raw ([^@]+)@@"/g, (_whole, name: string) => rawLiterals[name] ?? 'null');

/** Values of the wrong JSON type (or the right type, out of range) for an attribute. */
function hostileValue(rng: Random, attribute: AttributeSchema): [string, Json] {
  const max = attribute.maxLength ?? 512;
  const string = attribute.types.includes('string') && attribute.enum === undefined;
  const literal = rng.pick(rawNumbers);
  const candidates: [string, () => Json][] = [
    ['null', () => null],
    ['an object', () => ({ value: 'x' })],
    ['an array', () => ['x']],
    ['an empty array', () => []],
    ['a nested object', () => own([['__proto__', { admin: true }]])],
    ['true', () => true],
    ['a fraction', () => 1.5],
    ['a huge number', () => 1e308],
    [`the number ${literal} as written`, () => rawMarker(literal)],
    ['2147483648', () => 2147483648],
    ['-2147483649', () => -2147483649],
    ['a numeric string', () => '1'],
    ['"true"', () => 'true'],
    ['an empty string', () => ''],
    ['spaces', () => '   '],
    ['a NUL character', () => 'a\u0000b'],
    ['a lone surrogate', () => '\ud800x\udfff'],
    ['control characters', () => '\u0001\u001f\u007f'],
    ['unicode', () => '\u202E\u200B\uFEFFe\u0301\u2028\u{1F4A9}'],
    [`${max + 1} characters`, () => 'l'.repeat(max + 1)],
    [`${max} four-byte characters`, () => '\u{1F4A9}'.repeat(Math.min(max, 200000))],
    ['100000 characters', () => 'l'.repeat(100000)],
    ['a built-in name', () => rng.pick(builtins)],
    ['arrays nested 100000 deep', () => rawMarker('nested arrays')],
    ['objects nested 50000 deep', () => rawMarker('nested objects')],
  ];
  if (attribute.minimum !== undefined) candidates.push([`${attribute.minimum - 1}`, () => (attribute.minimum ?? 0) - 1]);
  if (attribute.maximum !== undefined) candidates.push([`${attribute.maximum + 1}`, () => (attribute.maximum ?? 0) + 1]);
  if (attribute.enum !== undefined) {
    const first = attribute.enum[0] ?? '';
    candidates.push(['an enum value in another case', () => (first === first.toLowerCase() ? first.toUpperCase() : first.toLowerCase())]);
    candidates.push(['an unknown enum value', () => 'nothing']);
  }
  if (string) candidates.push(['a quote and a backslash', () => `'"\\`]);
  const [label, make] = rng.pick(candidates);
  return [label, make()];
}

/** Values the attribute accepts, at the edges of its type and length. */
function edgeValue(rng: Random, attribute: AttributeSchema, unique: string): [string, Json] {
  const max = attribute.maxLength ?? 512;
  const candidates: [string, () => Json][] = [];
  if (attribute.enum !== undefined) for (const value of attribute.enum) candidates.push([JSON.stringify(value), () => value]);
  else if (attribute.types.includes('boolean')) {
    candidates.push(['false', () => false], ['"false"', () => 'false']);
  } else if (attribute.types.includes('integer')) {
    candidates.push(
      [`${attribute.minimum ?? 0}`, () => attribute.minimum ?? 0],
      [`${attribute.maximum ?? 0}`, () => attribute.maximum ?? 0],
      ['-0', () => rawMarker('-0')],
      ['1.0', () => rawMarker('1.0')],
      ['1E2', () => rawMarker('1E2')],
    );
  } else {
    candidates.push(
      [`${max} characters`, () => `${unique}-`.concat('m'.repeat(max)).slice(0, max)],
      [`${max} two-byte characters`, () => `${unique}-`.concat('\u00e9'.repeat(max)).slice(0, max)],
      ...(max * 4 < 900000 ? ([[`${max} four-byte characters`, () => '\u{1F4A9}'.repeat(max)]] as [string, () => Json][]) : []),
      ['wildcards and escapes', () => `${unique} *?[]%_\\'"`],
      ['unicode', () => `${unique} \u202E\u200B\uFEFFe\u0301\u2028\u{1F4A9}`],
      ['surrounding spaces', () => `  ${unique}  `],
      ['a lone surrogate', () => `${unique}\ud800`],
      ['a number as text', () => '1e400'],
    );
    if (attribute.types.includes('null')) candidates.push(['null', () => null], ['an empty string', () => '']);
  }
  if (candidates.length === 0) return ['null', null];
  const [label, make] = rng.pick(candidates);
  return [label, make()];
}

/** A value the attribute accepts. */
function validValue(attribute: AttributeSchema, unique: string): Json {
  if (attribute.enum !== undefined) return attribute.enum[0] ?? null;
  if (attribute.types.includes('boolean')) return false;
  if (attribute.types.includes('integer')) return 0;
  if (attribute.name === 'tcl') return Buffer.from('flow: []\n').toString('base64');
  if (attribute.name === 'key') return `K_${unique.toUpperCase()}`;
  return `h-${unique}`;
}

interface BodyPlan {
  what: string[];
  build: Late<string>;
}

const malformedBodies = [
  '{',
  '{"data":',
  '{"data":{"type":"x"}}}',
  'nul',
  '[',
  '"',
  "{'data': {}}",
  '{"data":{"type":"x",}}',
  '\uFEFF{"data":{}}',
  '{"a":1,"a":2}',
  '{"data":{"attributes":{"name":"x"},"attributes":{"name":"y"}}}',
  'NaN',
  '{"data":{"attributes":{"priority":NaN}}}',
  '\u0000',
  ' ',
  'undefined',
  '{"data":{"type":"\\ud800"}}',
];

function resourceBody(rng: Random, operation: Operation, type: TypeSchema, types: Map<string, TypeSchema>, unique: string): BodyPlan {
  const what: string[] = [];
  const edits: ((document: { [key: string]: Json }, resolution: Resolution) => void)[] = [];
  const count = rng.count();
  const writable = type.attributes.filter((a) => !a.readOnly);
  let terminal: Late<string> | undefined;
  for (let i = 0; i < count && terminal === undefined; i++) {
    const choice = rng.int(14);
    switch (choice) {
      case 0: {
        if (rng.chance(0.5)) {
          const raw = rng.pick(malformedBodies);
          what.push(`malformed JSON ${JSON.stringify(raw)}`);
          terminal = () => raw;
        } else {
          const value: Json = rng.pick<Json>([
            [],
            [{ data: { type: type.type } }],
            null,
            1,
            'text',
            true,
            {},
            { data: null },
            { data: [] },
            { data: 'x' },
            { data: {} },
            { errors: [] },
          ]);
          what.push(`document ${JSON.stringify(value)}`);
          terminal = () => JSON.stringify(value);
        }
        break;
      }
      case 1: {
        const other = rng.pick<Json>([
          rng.pick([...types.keys()].filter((t) => t !== type.type)),
          1,
          null,
          '',
          ['x'],
          { type: type.type },
          ...builtins,
          type.type.toUpperCase(),
          `${type.type} `,
        ]);
        what.push(`data.type ${JSON.stringify(other)}`);
        edits.push((document) => setOwn(document.data as { [key: string]: Json }, 'type', other));
        break;
      }
      case 2: {
        const builtin = rng.pick(builtins);
        const variants: [string, Late<Json>][] = [
          ['a number', () => 1],
          ['an object', () => ({ id: 'x' })],
          ['another id', ({ fixture }) => idOf(fixture, 'own', 'workspace')],
          ['an id of another organization', ({ fixture }) => idOf(fixture, 'foreign', type.type)],
          ['empty', () => ''],
          ['null', () => null],
          ['not a uuid', () => 'not-a-uuid'],
          ['NUL', () => '\u0000'],
          ['long', () => 'i'.repeat(5000)],
          [`the built-in name ${builtin}`, () => builtin],
        ];
        const [label, value] = rng.pick(variants);
        what.push(`data.id ${label}`);
        edits.push((document, resolution) => setOwn(document.data as { [key: string]: Json }, 'id', value(resolution)));
        break;
      }
      case 3: {
        const value = rng.pick<Json>([[], 'x', 1, null, true, [{ name: 'x' }]]);
        what.push(`data.attributes ${JSON.stringify(value)}`);
        edits.push((document) => setOwn(document.data as { [key: string]: Json }, 'attributes', value));
        break;
      }
      case 4: {
        const name = rng.pick([
          ...builtins,
          'nothing',
          '',
          'id',
          'type',
          'createdBy',
          'createdDate',
          'lastJobStatus',
          'incomplete',
          'name ',
          'NAME',
        ]);
        const [label, value] = rng.chance(0.5) ? hostileValue(rng, textAttribute(name, 10)) : ['"x"', 'x'];
        what.push(`attribute ${JSON.stringify(name)} = ${label}`);
        edits.push((document) => setOwn(attributesOf(document), name, value));
        break;
      }
      case 5:
      case 6:
      case 7:
      case 8: {
        const attribute = rng.pick(writable.length > 0 ? writable : type.attributes);
        const [label, value] = rng.chance(0.4) ? edgeValue(rng, attribute, unique) : hostileValue(rng, attribute);
        what.push(`${attribute.name} = ${label}`);
        edits.push((document) => setOwn(attributesOf(document), attribute.name, value));
        break;
      }
      case 9: {
        const readOnly = type.attributes.filter((a) => a.readOnly);
        if (readOnly.length === 0) break;
        const attribute = rng.pick(readOnly);
        const [label, value] = hostileValue(rng, attribute);
        what.push(`read-only ${attribute.name} = ${label}`);
        edits.push((document) => setOwn(attributesOf(document), attribute.name, value));
        break;
      }
      case 10: {
        const value = rng.pick<Json>([[], 'x', 1, null, true]);
        what.push(`data.relationships ${JSON.stringify(value)}`);
        edits.push((document) => setOwn(document.data as { [key: string]: Json }, 'relationships', value));
        break;
      }
      case 11:
      case 12: {
        const names = [...type.relationships.map((r) => r.name), ...builtins, ...unmodeled, 'nothing', ''];
        const name = rng.pick(names);
        const declared = type.relationships.find((r) => r.name === name);
        const target = declared?.target ?? rng.pick([...types.keys()]);
        const uuid = rng.uuid();
        const badId = rng.pick(['x', '\u0000', 'i'.repeat(3000), ...builtins]);
        const badType = rng.pick<Json>([...builtins, 'nothing', 1]);
        const variants: [string, Late<Json>][] = [
          ['no data member', () => ({})],
          ['data null', () => ({ data: null })],
          ['data []', () => ({ data: [] })],
          ['data [{}]', () => ({ data: [{}] })],
          ['data {}', () => ({ data: {} })],
          ['a bare id', ({ fixture }) => idOf(fixture, 'own', target)],
          ['a record of another organization', ({ fixture }) => ({ data: { type: target, id: idOf(fixture, 'foreign', target) } })],
          ['a record of this organization', ({ fixture }) => ({ data: { type: target, id: idOf(fixture, 'own', target) } })],
          ['an unknown id', () => ({ data: { type: target, id: uuid } })],
          ['an id that is not a uuid', () => ({ data: { type: target, id: badId } })],
          ['an id of another type', ({ fixture }) => ({ data: { type: target, id: idOf(fixture, 'own', 'template') } })],
          ['a wrong type', ({ fixture }) => ({ data: { type: badType, id: idOf(fixture, 'own', target) } })],
          ['a numeric id', () => ({ data: { type: target, id: 1 } })],
          ['a list of records', ({ fixture }) => ({ data: [{ type: target, id: idOf(fixture, 'own', target) }] })],
        ];
        const [label, value] = rng.pick(variants);
        what.push(`relationship ${JSON.stringify(name)}: ${label}`);
        edits.push((document, resolution) => {
          const data = document.data as { [key: string]: Json };
          const relationships = data.relationships;
          const holder =
            relationships !== null && typeof relationships === 'object' && !Array.isArray(relationships) ? relationships : own([]);
          setOwn(holder, name, value(resolution));
          setOwn(data, 'relationships', holder);
        });
        break;
      }
      default: {
        const name = rng.pick(['included', 'meta', 'jsonapi', 'links', 'errors', '__proto__', 'constructor']);
        what.push(`top-level ${name}`);
        const value = rng.pick<Json>([{ x: 1 }, [], null, 'x']);
        edits.push((document) => setOwn(document, name, value));
        break;
      }
    }
  }
  if (terminal !== undefined) {
    const raw = terminal;
    return { what, build: (resolution) => raw(resolution) };
  }
  const base = validResource(operation, type, unique);
  return {
    what,
    build: (resolution) => {
      const document = base(resolution);
      for (const edit of edits) edit(document, resolution);
      return withRawNumbers(JSON.stringify(document));
    },
  };
}

function attributesOf(document: { [key: string]: Json }): { [key: string]: Json } {
  const data = document.data as { [key: string]: Json };
  const attributes = data.attributes;
  if (attributes !== null && typeof attributes === 'object' && !Array.isArray(attributes)) return attributes;
  const fresh = own([]);
  setOwn(data, 'attributes', fresh);
  return fresh;
}

function linkageBody(rng: Random, types: Map<string, TypeSchema>): BodyPlan {
  const anyType = rng.pick([...types.keys()]);
  const uuid = rng.uuid();
  const builtin = rng.pick(builtins);
  const malformed = rng.pick(malformedBodies);
  const variants: [string, Late<string>][] = [
    ['data null', () => '{"data":null}'],
    ['no data', () => '{}'],
    ['data []', () => '{"data":[]}'],
    ['data [record]', ({ fixture }) => JSON.stringify({ data: [{ type: anyType, id: idOf(fixture, 'own', anyType) }] })],
    ['a record of this organization', ({ fixture }) => JSON.stringify({ data: { type: anyType, id: idOf(fixture, 'own', anyType) } })],
    [
      'a record of another organization',
      ({ fixture }) => JSON.stringify({ data: { type: anyType, id: idOf(fixture, 'foreign', anyType) } }),
    ],
    ['an unknown id', () => JSON.stringify({ data: { type: anyType, id: uuid } })],
    ['type only', () => JSON.stringify({ data: { type: anyType } })],
    ['empty id', () => JSON.stringify({ data: { type: anyType, id: '' } })],
    ['a NUL id', () => JSON.stringify({ data: { type: anyType, id: 'a\u0000b' } })],
    ['a long id', () => JSON.stringify({ data: { type: anyType, id: 'i'.repeat(5000) } })],
    ['a numeric id', () => JSON.stringify({ data: { type: anyType, id: 7 } })],
    ['a built-in type', ({ fixture }) => JSON.stringify({ data: { type: builtin, id: idOf(fixture, 'own', anyType) } })],
    ['a built-in id', () => JSON.stringify({ data: { type: anyType, id: builtin } })],
    ['a document of attributes', () => JSON.stringify({ data: { type: anyType, attributes: { name: 'x' } } })],
    ['malformed JSON', () => malformed],
    ['a bare array', () => '[]'],
    ['a number', () => '12'],
  ];
  const [label, build] = rng.pick(variants);
  return { what: [`linkage ${label}`], build: (resolution) => build(resolution) };
}

function tokenBody(rng: Random, schema: TokenBodySchema, unique: string): BodyPlan {
  const what: string[] = [];
  const edits: ((body: { [key: string]: Json }, resolution: Resolution) => void)[] = [];
  let terminal: string | undefined;
  const count = rng.count();
  const fields = Object.keys(schema.properties);
  for (let i = 0; i < count && terminal === undefined; i++) {
    const choice = rng.int(8);
    if (choice === 0) {
      terminal = rng.pick([...malformedBodies, '[]', 'null', '1', '"x"', '[{"description":"x"}]']);
      what.push(`body ${JSON.stringify(terminal)}`);
    } else if (choice === 1) {
      const field = rng.pick(schema.required.length > 0 ? schema.required : fields);
      what.push(`without ${field}`);
      edits.push((body) => {
        Reflect.deleteProperty(body, field);
      });
    } else if (choice === 2) {
      const field = rng.pick([...builtins, 'nothing', '', 'expiresAt', 'createdBy']);
      what.push(`unknown field ${JSON.stringify(field)}`);
      edits.push((body) => setOwn(body, field, 'x'));
    } else {
      const field = rng.pick(fields);
      const lifetime = ['days', 'hours', 'minutes'].includes(field);
      const literal = rng.pick(rawNumbers);
      const [label, value] = lifetime
        ? rng.pick<[string, Json]>([
            ['-1', -1],
            ['1.5', 1.5],
            ['1e300', 1e300],
            [`the number ${literal} as written`, rawMarker(literal)],
            ['"1e3"', '1e3'],
            ['"  12  "', '  12  '],
            ['"99999999999999999999999"', '99999999999999999999999'],
            ['"-1"', '-1'],
            ['"0x10"', '0x10'],
            ['""', ''],
            ['true', true],
            ['[]', []],
            ['{}', {}],
            ['2147483648', 2147483648],
            ['36500', 36500],
            ['52560001 minutes', 52560001],
            ['"１"', '１'],
            ['NUL', '1\u0000'],
          ])
        : hostileValue(rng, textAttribute(field, schema.properties[field]?.maxLength));
      what.push(`${field} = ${label}`);
      edits.push((body) => setOwn(body, field, value));
    }
  }
  if (terminal !== undefined) {
    const raw = terminal;
    return { what, build: () => raw };
  }
  return {
    what,
    build: (resolution) => {
      const body = validToken(schema, unique)(resolution);
      for (const edit of edits) edit(body, resolution);
      return withRawNumbers(JSON.stringify(body));
    },
  };
}

// ----- headers

const base64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function signHs256(key: string, header: unknown, payload: unknown): string {
  const unsigned = `${base64url(header)}.${base64url(payload)}`;
  return `${unsigned}.${createHmac('sha256', Buffer.from(key, 'utf8')).update(unsigned).digest('base64url')}`;
}

/** Claims of a valid administrator token, with one of them made hostile; signed with the server's own key. */
function forgedClaims(rng: Random): [string, (now: number) => Record<string, unknown>] {
  const variants: [string, Record<string, unknown>][] = [
    ['groups as a string', { groups: adminGroup }],
    ['groups of other types', { groups: [1, null, {}, ['x'], true] }],
    ['groups as an object', { groups: { length: 1, 0: adminGroup } }],
    ['built-in group names', { groups: [...builtins] }],
    ['a NUL in a group', { groups: ['a\u0000b'] }],
    ['an empty group', { groups: [''] }],
    ['800 groups', { groups: Array.from({ length: 800 }, (_, i) => `g${i}`) }],
    ['a numeric subject', { sub: 5 }],
    ['an empty subject', { sub: '' }],
    ['a long subject', { sub: 's'.repeat(3000), email: undefined }],
    ['a NUL in the subject', { sub: 'a\u0000b', email: undefined }],
    ['an array subject', { sub: ['a'] }],
    ['a long email', { email: `${'e'.repeat(600)}@example.com` }],
    ['a NUL in the email', { email: 'a\u0000b@example.com' }],
    ['a numeric email', { email: 5 }],
    ['an object name', { name: { first: 'x' } }],
    ['exp as a string', { exp: 'never' }],
    ['exp 1e300', { exp: 1e300 }],
    ['exp negative', { exp: -1 }],
    ['nbf in the future', { nbf: 99999999999 }],
    ['iat as a string', { iat: 'x' }],
    ['no issuer', { iss: undefined }],
    ['issuer with a space', { iss: 'stratum ' }],
    ['issuer as an array', { iss: ['stratum'] }],
    ['a tracked kind with an unknown jti', { stratum_token: 'team', jti: '0190a3b4-0000-7000-8000-000000000000' }],
    ['a tracked kind with a numeric jti', { stratum_token: 'team', jti: 5 }],
    ['a tracked kind with a jti that is not a uuid', { stratum_token: 'personal', jti: 'not-a-uuid' }],
    ['a tracked kind with a NUL jti', { stratum_token: 'team', jti: 'a\u0000b' }],
    ['a tracked kind with a long jti', { stratum_token: 'team', jti: 'j'.repeat(3000) }],
    ['a built-in tracked kind', { stratum_token: rng.pick(builtins), jti: 'x' }],
    ['a tracked kind without jti', { stratum_token: 'personal', jti: undefined }],
  ];
  const [label, change] = rng.pick(variants);
  return [
    label,
    (now) => {
      const claims: Record<string, unknown> = {
        sub: 'hostile@example.com',
        email: 'hostile@example.com',
        groups: [adminGroup],
        iss: 'stratum',
        iat: now,
        exp: now + 3600,
      };
      for (const [name, value] of Object.entries(change)) {
        if (value === undefined) Reflect.deleteProperty(claims, name);
        else claims[name] = value;
      }
      return claims;
    },
  ];
}

interface HeaderPlan {
  what: string[];
  apply: (headers: Record<string, string | string[]>, resolution: Resolution) => void;
  chunked: boolean;
  /** The Content-Type of the body, when the plan changes it (undefined there: none is sent). */
  contentType: Late<string | undefined> | undefined;
}

function headerPlan(rng: Random): HeaderPlan {
  const what: string[] = [];
  const edits: ((headers: Record<string, string | string[]>, resolution: Resolution) => void)[] = [];
  let contentType: Late<string | undefined> | undefined;
  let chunked = false;
  const count = 1 + rng.int(2);
  for (let i = 0; i < count; i++) {
    const choice = rng.int(10);
    if (choice <= 2) {
      const authorization: [string, Late<string | undefined>][] = [
        ['no Authorization', () => undefined],
        ['empty Authorization', () => ''],
        ['Bearer and no token', () => 'Bearer'],
        ['Bearer and spaces', () => 'Bearer    '],
        ['Basic credentials', () => 'Basic YWRtaW46cGFzc3dvcmQ='],
        ['lower-case bearer', ({ fixture }) => `bearer ${fixture.tokens.administrator}`],
        ['two tokens', ({ fixture }) => `Bearer ${fixture.tokens.administrator} ${fixture.tokens.administrator}`],
        ['a token with a suffix', ({ fixture }) => `Bearer ${fixture.tokens.administrator}x`],
        ['a garbage token', () => 'Bearer not-a-token'],
        ['three garbage parts', () => 'Bearer a.b.c'],
        ['characters outside base64url', () => 'Bearer ###.$$$.%%%'],
        ['latin-1 bytes', () => 'Bearer \u00ff\u00fe.\u00e9.x'],
        ['a token of 12000 characters', () => `Bearer ${'a'.repeat(12000)}`],
        ['a token of another signer', ({ fixture }) => `Bearer ${fixture.stranger}`],
        ['an expired token', ({ fixture }) => `Bearer ${fixture.expired}`],
        ['a revoked team token', ({ fixture }) => `Bearer ${fixture.revoked}`],
        [
          'an alg none token',
          ({ fixture }) => `Bearer ${base64url({ alg: 'none', typ: 'JWT' })}.${fixture.tokens.administrator.split('.')[1] ?? ''}.`,
        ],
        [
          'a JWT whose header is not JSON',
          ({ fixture }) => `Bearer ${base64url('x')}.${fixture.tokens.administrator.split('.')[1] ?? ''}.x`,
        ],
        ['a JWT whose payload is an array', ({ fixture }) => `Bearer ${signHs256(fixture.tokenKey, { alg: 'HS256' }, [])}`],
        ['a JWT whose payload is null', ({ fixture }) => `Bearer ${signHs256(fixture.tokenKey, { alg: 'HS256' }, 'null')}`],
        [
          'a JWT header with kid, crit and jku',
          ({ fixture }) => {
            const now = Math.floor(Date.now() / 1000);
            const header = { alg: 'HS256', kid: '../../etc/passwd', crit: ['exp'], jku: 'http://127.0.0.1:1/' };
            return `Bearer ${signHs256(fixture.tokenKey, header, { sub: 'x', groups: [adminGroup], iss: 'stratum', exp: now + 60 })}`;
          },
        ],
        ['an HS512 header', ({ fixture }) => `Bearer ${signHs256(fixture.tokenKey, { alg: 'HS512' }, { sub: 'x', iss: 'stratum' })}`],
      ];
      const [forgedLabel, claims] = forgedClaims(rng);
      const forged: [string, Late<string | undefined>] = [
        `a token of the service's key with ${forgedLabel}`,
        ({ fixture }) => `Bearer ${signHs256(fixture.tokenKey, { alg: 'HS256', typ: 'JWT' }, claims(Math.floor(Date.now() / 1000)))}`,
      ];
      const [label, value] = rng.chance(0.4) ? forged : rng.pick(authorization);
      what.push(`Authorization: ${label}`);
      edits.push((headers, resolution) => {
        const header = value(resolution);
        if (header === undefined) delete headers.authorization;
        else headers.authorization = header;
      });
    } else if (choice <= 4) {
      const value = rng.pick<string | undefined>([
        undefined,
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/vnd.api+json; charset=utf-16',
        'application/vnd.api+json; charset=latin1',
        'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"',
        'application/vnd.api+json; profile=x; x=y',
        'application/json;;;',
        'application/json; charset=',
        'APPLICATION/JSON',
        'application/jsonx',
        'application/vnd.api+json, application/json',
        'application/*',
        '*/*',
        '',
        ';',
        'application/json\u00ff',
        'application/vnd.api+json; constructor=1; __proto__=2',
      ]);
      what.push(`Content-Type: ${JSON.stringify(value ?? '(none)')}`);
      contentType = () => value;
    } else if (choice <= 6) {
      const name = rng.pick(['if-match', 'if-none-match']);
      const value = rng.pick([
        '*',
        'W/"x"',
        '"',
        '"x"',
        ',,,',
        '',
        'x',
        '"a", *',
        `"${'e'.repeat(8000)}"`,
        '\u00ff\u00fe',
        'W/',
        'W/*',
        '"\u00e9"',
        '*, *',
        ' *',
      ]);
      what.push(`${name}: ${JSON.stringify(value.length > 40 ? `${value.slice(0, 12)}... (${value.length} characters)` : value)}`);
      edits.push((headers) => {
        headers[name] = value;
      });
    } else if (choice === 7) {
      const [name, value] = rng.pick<[string, string | string[]]>([
        ['accept', 'text/html'],
        ['accept', 'application/vnd.api+json; ext=x'],
        ['accept', 'application/vnd.api+json; profile="x", application/vnd.api+json; ext=y'],
        ['content-encoding', 'gzip'],
        ['x-http-method-override', 'DELETE'],
        ['content-type', ['application/json', 'text/plain']],
        ['if-match', ['*', '"x"']],
        ['accept-charset', 'utf-16'],
      ]);
      what.push(`${name}: ${JSON.stringify(value)}`);
      edits.push((headers) => {
        headers[name] = value;
      });
    } else if (choice === 8) {
      what.push('chunked body');
      chunked = true;
    } else {
      const value = rng.pick(['\u00e9', '\u0080', 'x'.repeat(8000)]);
      what.push(`an unknown header of ${value.length} characters`);
      edits.push((headers) => {
        headers['x-hostile'] = value;
      });
    }
  }
  return { what, apply: (headers, resolution) => edits.forEach((edit) => edit(headers, resolution)), chunked, contentType };
}

// ----- one case

function generateCase(rng: Random, no: number, operation: Operation, types: Map<string, TypeSchema>, operations: Operation[]): Case {
  const what: string[] = [];
  // Mostly callers who may do what they ask, so that the request gets to the code past the permission checks.
  const caller = rng.weighted<CallerKind>([
    ['administrator', 7],
    ['member with every permission', 1.5],
    ['member who may only read', 1],
    ['holder of a grant', 1],
    ['outsider', 0.5],
  ]);
  const unique = `${no}-${rng.hex(6)}`;
  const hasBody = operation.body !== undefined;
  // Mostly one hostile part per request, so that it gets past the checks of the others.
  const weights: [string, number][] = [
    ['path', operation.params.length > 0 ? 1.5 : 0],
    ['query', 3],
    ['body', hasBody ? 8 : 0.3],
    ['headers', 1.5],
  ];
  const dimensions = new Set<string>();
  for (let i = rng.count(); i > 0; i--) dimensions.add(rng.weighted(weights));
  const mutatePath = dimensions.has('path');
  const mutateQuery = dimensions.has('query');
  const mutateBody = dimensions.has('body');
  const mutateHeaders = dimensions.has('headers');

  const params: Record<string, Late<string>> = {};
  for (const param of operation.params) params[param] = ownPathValue(operation, param, types, rng);
  let shape: ((path: string) => string) | undefined;
  if (mutatePath && rng.chance(0.15)) {
    const [label, change] = rng.pick<[string, (path: string) => string]>([
      ['a trailing slash', (path) => `${path}/`],
      ['a double slash', (path) => path.replace('/api/v1/', '/api/v1//').replace('/v1/teams', '/v1//teams').replace('/pat/v1', '/pat//v1')],
      ['an extra segment', (path) => `${path}/nothing`],
      ['an extra relationships segment', (path) => `${path}/relationships/constructor`],
      ['an upper-case prefix', (path) => path.replace(/^\/[a-z-]+/, (prefix) => prefix.toUpperCase())],
      ['a matrix parameter', (path) => `${path};x=1`],
      ['an encoded slash between segments', (path) => path.replace(/\/([^/]+)$/, '%2F$1')],
      ['a dot segment', (path) => path.replace(/\/([^/]+)$/, '/./$1')],
    ]);
    what.push(`path with ${label}`);
    shape = change;
  } else if (mutatePath) {
    const mutated = rng.shuffle([...operation.params]).slice(0, rng.chance(0.8) ? 1 : 2);
    for (const param of mutated) {
      const [label, value] = pathValue(rng, operation, param, types);
      what.push(`{${param}} ${label}`);
      params[param] = value;
    }
  }

  const query: string[] = [];
  if (mutateQuery) {
    const parts = rng.chance(0.45) ? edgeQueryParts(rng, operation, types) : queryParts(rng, operation, types);
    for (const [label, raw] of parts) {
      what.push(`query ${label}`);
      query.push(raw);
    }
  } else if (operation.list && rng.chance(0.3)) {
    // A plain list call with includes and totals, so hostile bodies and headers reach the list code too.
    const names = types.get(operation.type)?.relationships.map((r) => r.name) ?? ['organization'];
    query.push('page[totals]', ...(names.length > 0 ? [pair('include', rng.pick(names))] : []));
  }

  let body: BodyPlan | undefined;
  const serialized =
    (make: Late<Json>): BodyPlan['build'] =>
    (resolution) =>
      JSON.stringify(make(resolution));
  if (operation.body?.kind === 'resource') {
    const type = types.get(operation.body.type);
    if (type === undefined) throw new Error(`no schema for ${operation.body.type}`);
    body = mutateBody
      ? resourceBody(rng, operation, type, types, unique)
      : { what: [], build: serialized(validResource(operation, type, unique)) };
  } else if (operation.body?.kind === 'token') {
    body = mutateBody
      ? tokenBody(rng, operation.body.schema, unique)
      : { what: [], build: serialized(validToken(operation.body.schema, unique)) };
  } else if (operation.body?.kind === 'atomic') {
    body = atomicBody(rng, operations, types, unique, mutateBody);
  } else if (operation.body?.kind === 'linkage') {
    body = mutateBody
      ? linkageBody(rng, types)
      : { what: [], build: ({ fixture, params }) => validLinkage(operation, fixture, params, types) };
  } else if (mutateBody) {
    const raw = rng.pick(['{"data":{"type":"x"}}', ...malformedBodies]);
    body = { what: [`a body on ${operation.method}: ${JSON.stringify(raw)}`], build: () => raw };
  }
  if (body !== undefined) what.push(...body.what);
  const oversized = hasBody && rng.chance(0.01);
  if (oversized) what.push('a body over 1 MiB');

  const headers = mutateHeaders ? headerPlan(rng) : undefined;
  if (headers !== undefined) what.push(...headers.what);

  const build = (fixture: Fixture): Wire => {
    const resolvedParams: Record<string, string> = {};
    const resolution: Resolution = { fixture, params: resolvedParams };
    for (const param of operation.params) resolvedParams[param] = (params[param] as Late<string>)(resolution);
    const filled = operation.path.replace(/\{(\w+)\}/g, (_whole, name: string) => resolvedParams[name] ?? '');
    const path = shape === undefined ? filled : shape(filled);
    const wireHeaders: Record<string, string | string[]> = { authorization: `Bearer ${fixture.tokens[caller]}` };
    let text = body?.build(resolution);
    if (oversized) text = JSON.stringify({ data: { type: operation.type, attributes: { description: 'o'.repeat(1100000) } } });
    const contentType =
      headers?.contentType === undefined
        ? operation.api === 'token'
          ? 'application/json'
          : operation.body?.kind === 'atomic'
            ? operation.body.mediaType
            : 'application/vnd.api+json'
        : headers.contentType(resolution);
    if (text !== undefined && contentType !== undefined) wireHeaders['content-type'] = contentType;
    headers?.apply(wireHeaders, resolution);
    return { method: operation.method, path, query: query.join('&'), headers: wireHeaders, body: text, chunked: headers?.chunked ?? false };
  };
  return { no, operation, caller, what, build };
}

/** A create or update document the endpoint accepts, the ground hostile edits are made on. */
function validResource(operation: Operation, type: TypeSchema, unique: string): Late<{ [key: string]: Json }> {
  const create = operation.method === 'POST';
  return (resolution) => {
    const attributes = own([]);
    if (create) {
      for (const name of type.required) {
        const attribute = type.attributes.find((a) => a.name === name);
        if (attribute !== undefined) setOwn(attributes, name, validValue(attribute, unique));
      }
    } else {
      const plain = type.attributes.find((a) => !a.readOnly && a.types.includes('null') && a.types.includes('string'));
      if (plain !== undefined) setOwn(attributes, plain.name, `changed-${unique}`);
    }
    const data = own([
      ['type', type.type],
      ['attributes', attributes],
    ]);
    if (!create) setOwn(data, 'id', resolution.params[operation.params.at(-1) ?? ''] ?? null);
    const links = type.required.filter((r) => r.startsWith('relationships.')).map((r) => r.slice('relationships.'.length));
    if (create && links.length > 0) {
      const relationships = own([]);
      for (const link of links) {
        const target = type.relationships.find((r) => r.name === link)?.target ?? link;
        // A second reference to the same workspace would be a duplicate: the spare one is free.
        const id = target === 'workspace' ? resolution.fixture.own.spareWorkspace : idOf(resolution.fixture, 'own', target);
        setOwn(relationships, link, { data: { type: target, id } });
      }
      setOwn(data, 'relationships', relationships);
    }
    return own([['data', data]]);
  };
}

/**
 * An atomic operations document: one to three operations on the other write paths, each aimed by
 * an href (relative or absolute), a ref (by id, of this or another organization, or by lid) or its
 * data alone, with a valid or hostile resource object, linkage or none; or a hostile document.
 */
function atomicBody(rng: Random, operations: Operation[], types: Map<string, TypeSchema>, unique: string, hostile: boolean): BodyPlan {
  if (hostile && rng.chance(0.25)) {
    const raw = rng.pick([
      '{"atomic:operations":[]}',
      '{"atomic:operations":{}}',
      '{"atomic:operations":null}',
      '{"atomic:operations":[null,1,"x",[]]}',
      `{"atomic:operations":[${Array.from({ length: 101 }, () => '{"op":"remove","ref":{"type":"workspace","id":"x"}}').join(',')}]}`,
      '{"data":{"type":"workspace"},"atomic:operations":[{"op":"remove"}]}',
      '{"atomic:results":[{}]}',
      '{"atomic:operations":[{"op":"add","href":"/organization","data":{"type":"organization","lid":{"x":1},"attributes":{"name":"x"}}}]}',
      ...malformedBodies,
    ]);
    return { what: [`atomic document ${clip(raw, 60)}`], build: () => raw };
  }
  const writes = operations.filter((o) => o.api === 'jsonapi' && o.method !== 'GET' && o.body?.kind !== 'atomic');
  const what: string[] = [];
  const parts: Late<string>[] = [];
  const count = 1 + rng.int(3);
  for (let i = 0; i < count; i++) {
    const inner = rng.pick(writes);
    const op = inner.method === 'POST' ? 'add' : inner.method === 'PATCH' ? 'update' : 'remove';
    const params: Record<string, Late<string>> = {};
    for (const param of inner.params) params[param] = ownPathValue(inner, param, types, rng);
    const type = types.get(inner.body?.kind === 'resource' ? inner.body.type : inner.type);
    const aim = rng.weighted<'href' | 'absolute' | 'ref' | 'lid' | 'foreign' | 'none'>([
      ['href', 4],
      ['absolute', 1],
      ['ref', 2],
      ['lid', 1],
      ['foreign', 1],
      ['none', 1],
    ]);
    const refLid = rng.pick(['w', 'v', 'nope']);
    // A new record's local id, which later operations of the document may name.
    const lid = rng.chance(0.3) ? rng.pick(['w', 'v', '', 'x'.repeat(300)]) : undefined;
    const hostileData = hostile && rng.chance(0.5);
    let data: BodyPlan | undefined;
    if (op !== 'remove' && inner.body?.kind === 'linkage') {
      data = hostileData
        ? linkageBody(rng, types)
        : { what: [], build: ({ fixture, params: p }) => validLinkage(inner, fixture, p, types) };
    } else if (op !== 'remove' && type !== undefined) {
      data = hostileData
        ? resourceBody(rng, inner, type, types, unique)
        : {
            what: [],
            build: (resolution) => {
              const document = validResource(inner, type, unique)(resolution);
              if (lid !== undefined) setOwn(document.data as { [key: string]: Json }, 'lid', lid);
              return JSON.stringify(document);
            },
          };
    }
    what.push(`${op} ${aim} ${inner.method} ${inner.path}`, ...(data?.what ?? []));
    parts.push((resolution) => {
      const resolved: Record<string, string> = {};
      for (const param of inner.params) resolved[param] = (params[param] as Late<string>)({ ...resolution, params: resolved });
      const path = inner.path.replace(/\{(\w+)\}/g, (_whole, name: string) => resolved[name] ?? '');
      const operation = own([['op', op]]);
      const id = resolved[inner.params.at(-1) ?? ''] ?? '';
      const refType = type?.type ?? inner.type;
      if (aim === 'href') setOwn(operation, 'href', path.replace(/^\/api\/v1/, ''));
      else if (aim === 'absolute') setOwn(operation, 'href', `http://127.0.0.1${path}`);
      else if (aim === 'ref') setOwn(operation, 'ref', { type: refType, id });
      else if (aim === 'lid') setOwn(operation, 'ref', { type: refType, lid: refLid });
      else if (aim === 'foreign') setOwn(operation, 'ref', { type: refType, id: resolution.fixture.foreign.ids[refType] ?? id });
      const text = JSON.stringify(operation);
      if (data === undefined) return text;
      // Spliced as text: a hostile document may be malformed, or nested too deep to parse and print again.
      const built = data.build({ ...resolution, params: resolved });
      const member = built.startsWith('{"data":') && built.endsWith('}') ? built.slice('{"data":'.length, -1) : built;
      return `${text.slice(0, -1)},"data":${member}}`;
    });
  }
  return {
    what,
    build: (resolution) => withRawNumbers(`{"atomic:operations":[${parts.map((part) => part(resolution)).join(',')}]}`),
  };
}

/** A token request the endpoint accepts. */
function validToken(schema: TokenBodySchema, unique: string): Late<{ [key: string]: Json }> {
  return (resolution) => {
    const body = own([
      ['description', `hostile ${unique}`],
      ['days', 1],
    ]);
    if ('group' in schema.properties) setOwn(body, 'group', resolution.fixture.memberGroup);
    return body;
  };
}

/** A linkage document the relationship endpoint accepts: null, or the record it links already. */
function validLinkage(operation: Operation, fixture: Fixture, params: Record<string, string>, types: Map<string, TypeSchema>): string {
  const owner = types.get(operation.relationshipOf ?? '');
  const relationship = owner?.relationships.find((r) => r.name === params.relationship);
  if (relationship === undefined || relationship.many) return '{"data":null}';
  return JSON.stringify({ data: { type: relationship.target, id: idOf(fixture, 'own', relationship.target) } });
}

function generateCases(operations: Operation[], types: Map<string, TypeSchema>, count: number): Case[] {
  const rng = new Random(seed);
  const cases: Case[] = [];
  // Every operation in turn, in a shuffled order each time round, so each gets its share of the budget.
  let order: Operation[] = [];
  for (let no = 0; no < count; no++) {
    if (order.length === 0) order = rng.shuffle([...operations]);
    const operation = order.pop() as Operation;
    cases.push(generateCase(rng, no, operation, types, operations));
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Sending, and judging the answers

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/**
 * Sends a request and reads its answer. A server that refuses a request on its headers alone (401,
 * 413, 415) answers and closes the connection while the body is still being sent; the socket then
 * fails to write (EPIPE, ECONNRESET) and, depending on timing, the answer already on the wire is
 * lost with it. Such a request is sent once more: its answer depends on the headers only.
 */
async function send(base: URL, wire: Wire): Promise<Answer> {
  try {
    return await sendOnce(base, wire);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (wire.body === undefined || (code !== 'EPIPE' && code !== 'ECONNRESET')) throw error;
    return sendOnce(base, wire);
  }
}

function sendOnce(base: URL, wire: Wire): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = wire.body === undefined ? undefined : Buffer.from(wire.body, 'utf8');
    const headers = { ...wire.headers };
    if (body !== undefined) {
      // Node frames a body without a length as chunks only when told to for GET and DELETE.
      if (wire.chunked) headers['transfer-encoding'] = 'chunked';
      else headers['content-length'] = String(body.length);
    }
    const request = http.request({
      host: base.hostname,
      port: base.port,
      method: wire.method,
      path: wire.query === '' ? wire.path : `${wire.path}?${wire.query}`,
      headers,
      // A connection of its own, closed after the answer: a hostile request may rightly end its
      // connection, and a shared one would take the next request down with it.
      agent: false,
    });
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${requestTimeoutMs} ms`)), requestTimeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      response.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: response.statusCode ?? 0,
          contentType: response.headers['content-type'] ?? '',
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    if (body !== undefined) request.write(body);
    request.end();
  });
}

/** What must never show in an answer: traces of the code, and of the database behind it. */
const internals: [string, RegExp][] = [
  ['a stack frame', /\bat (?:async |new )?[\w$.<>[\]]+ \((?:file:|node:|\/|[A-Za-z]:\\)|(?:^|\n|\\n)\s+at \S/],
  ['a source position', /\.(?:ts|js|mjs|cjs):\d+/],
  ['an exception name', /\b(?:Type|Range|Reference|Syntax|Internal|Aggregate)Error\b|\bSqliteError\b|\bDatabaseError\b/],
  [
    'SQL',
    /\b(?:select\s+(?:\*|1|count|distinct|"|[\w"]+\.)|insert\s+into|update\s+"?\w+"?\s+set|delete\s+from|where\s+"?\w+"?\s*=\s*\$\d)/i,
  ],
  [
    'a database error',
    /SQLITE_|\bsqlite3?\b|syntax error|no such (?:table|column|function)|constraint failed|violates .* constraint|relation "|column "|invalid input syntax|out of range for type|invalid byte sequence|unterminated quoted|datatype mismatch|SQLSTATE|"code"\s*:\s*"(?:[0-9A-Z]{5})"/i,
  ],
];

function problemsOf(answer: Answer): string[] {
  const problems: string[] = [];
  // 502 is a notification destination's failure, told to the client as such, not the server's.
  const refusedDestination = answer.status === 502 && answer.text.includes('"code":"delivery_failed"');
  if (answer.status >= 500 && !refusedDestination) problems.push(`status ${answer.status}`);
  if ((answer.status >= 400 && answer.status < 500) || refusedDestination) {
    const errorDocument = errorDocumentProblem(answer);
    if (errorDocument !== undefined) problems.push(errorDocument);
  }
  for (const [what, pattern] of internals) if (pattern.test(answer.text)) problems.push(`${what} in the answer`);
  return problems;
}

/** Why a 4xx answer is not a JSON:API error document, or undefined when it is one. */
function errorDocumentProblem(answer: Answer): string | undefined {
  if (!answer.contentType.startsWith('application/vnd.api+json'))
    return `a ${answer.status} served as ${JSON.stringify(answer.contentType)}, not as a JSON:API error document`;
  let document: unknown;
  try {
    document = JSON.parse(answer.text);
  } catch {
    return `a ${answer.status} whose body is not JSON`;
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return `a ${answer.status} whose body is not an object`;
  const members = Object.keys(document);
  if (members.length !== 1 || members[0] !== 'errors') return `a ${answer.status} with members ${members.join(', ')} beside errors`;
  const errors = (document as { errors?: unknown }).errors;
  if (!Array.isArray(errors) || errors.length === 0) return `a ${answer.status} without an errors array`;
  for (const error of errors as Record<string, unknown>[]) {
    if (error.status !== String(answer.status)) return `a ${answer.status} with an error of status ${JSON.stringify(error.status)}`;
    for (const member of ['code', 'title', 'detail']) {
      if (typeof error[member] !== 'string' || error[member] === '') return `a ${answer.status} with an error without ${member}`;
    }
    const unexpected = Object.keys(error).find((member) => !['status', 'code', 'title', 'detail', 'source'].includes(member));
    if (unexpected !== undefined) return `a ${answer.status} with an error member ${unexpected}`;
    if (error.source !== undefined) {
      const source = error.source as Record<string, unknown> | null;
      const keys = source === null || typeof source !== 'object' ? [] : Object.keys(source);
      const [key] = keys;
      if (keys.length !== 1 || (key !== 'pointer' && key !== 'parameter') || typeof source?.[key] !== 'string') {
        return `a ${answer.status} with an error source ${JSON.stringify(error.source)}`;
      }
    }
  }
  return undefined;
}

/** The request as it went out, to judge that an answer's trace is not just an echo of what was sent. */
function checkGenerated(wire: Wire): void {
  const sent = `${wire.path}?${wire.query}\n${wire.body ?? ''}`;
  for (const [what, pattern] of internals) {
    if (pattern.test(sent)) throw new Error(`the generator made a request that itself holds ${what}: ${sent.slice(0, 300)}`);
  }
}

const clip = (text: string, length: number) => {
  const printable = JSON.stringify(text).slice(1, -1);
  return printable.length > length ? `${printable.slice(0, length)}... (${text.length} characters)` : printable;
};

interface Failure {
  no: number;
  line: string;
  problems: string[];
}

async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

// ---------------------------------------------------------------------------------------------

describeEachStore('hostile inputs', (context) => {
  let operations: Operation[];
  let types: Map<string, TypeSchema>;
  // The repository the fixtures' modules are published from, on loopback.
  let git: GitServer | undefined;
  let moduleSource = '';

  after(async () => {
    await git?.stop();
  });

  before(async () => {
    git = await GitServer.start();
    moduleSource = git.repository('network', [{ files: { 'main.tf': 'variable "region" {}\n' }, tags: ['v1.0.0'] }]);
    const description = (await context.server.get('/api/openapi.json', { token: null })).body;
    operations = operationsOf(description);
    types = typesOf(description);
    assert.ok(operations.length > 100, `only ${operations.length} operations`);
    assert.ok(
      operations.some((o) => o.api === 'token'),
      'no token operation',
    );
    assert.ok(
      budget >= operations.length || onlyCases !== undefined,
      `a budget of ${budget} requests does not reach all ${operations.length} operations`,
    );
  });

  it(
    'every operation answers hostile path parameters, queries, bodies and headers below 500, with error documents and no trace of the code or SQL, and the server stays up',
    { timeout: 300000 },
    async (t) => {
      const started = Date.now();
      t.diagnostic(`seed ${seed} (replay: STRATUM_FUZZ_SEED=${seed}), ${budget} requests on ${context.kind}`);
      const strangerSigner = new TokenSigner(randomBytes(32).toString('base64url'), adminGroup);
      const stranger = (await strangerSigner.sign({ subject: 'intruder@example.com', groups: [adminGroup], ttlSeconds: 3600 })).token;
      const cases = generateCases(operations, types, budget).filter((c) => onlyCases === undefined || onlyCases.has(c.no));
      const base = new URL(context.server.url);
      const failures: Failure[] = [];
      const covered = new Set<Operation>();
      let sent = 0;
      const statuses = new Map<number, number>();

      /** Set when the server stopped taking connections, or the run its time: the rest of the cases are not sent. */
      let stopped: { no: number; why: string; skipped: number } | undefined;
      const run = async (testCase: Case, fixture: Fixture) => {
        if (stopped === undefined && Date.now() - started > runDeadlineMs) {
          stopped = { no: testCase.no, why: `the run took longer than ${runDeadlineMs / 1000} s`, skipped: 0 };
        }
        if (stopped !== undefined) {
          stopped.skipped++;
          return;
        }
        const wire = testCase.build(fixture);
        checkGenerated(wire);
        covered.add(testCase.operation);
        const report = (status: string, answer: string) =>
          [
            `#${testCase.no} ${wire.method} ${clip(wire.path, 160)}`,
            wire.query === '' ? undefined : `?${clip(wire.query, 160)}`,
            wire.body === undefined ? undefined : `body ${clip(wire.body, 120)}`,
            `caller ${testCase.caller}`,
            `hostile: ${testCase.what.join('; ') || '(valid request)'}`,
            `-> ${status} ${clip(answer, 200)}`,
          ]
            .filter((part) => part !== undefined)
            .join(' | ');
        let answer: Answer;
        try {
          answer = await send(base, wire);
          sent++;
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          failures.push({ no: testCase.no, line: report('no answer', message), problems: [`no answer: ${message}`] });
          if ((error as { code?: unknown }).code === 'ECONNREFUSED')
            stopped ??= { no: testCase.no, why: 'the server refused connections', skipped: 0 };
          return;
        }
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const problems = problemsOf(answer);
        if (problems.length > 0) failures.push({ no: testCase.no, line: report(String(answer.status), answer.text), problems });
      };

      for (let start = 0; start < cases.length && stopped === undefined; start += roundSize) {
        const round = cases.slice(start, start + roundSize);
        const fixture = await makeFixture(context.server, start / roundSize, stranger, moduleSource);
        // Deletes last: a deleted organization would turn the rest of the round into 404s.
        await inParallel(
          round.filter((c) => c.operation.method !== 'DELETE'),
          concurrency,
          (c) => run(c, fixture),
        );
        await inParallel(
          round.filter((c) => c.operation.method === 'DELETE'),
          concurrency,
          (c) => run(c, fixture),
        );
      }

      const statusOf = (path: string) =>
        context.server.get(path, { token: null }).then(
          (response) => String(response.status),
          (error: unknown) => `no answer (${error instanceof Error ? error.message : String(error)})`,
        );
      const health = await statusOf('/healthz');
      const ready = await statusOf('/readyz');
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      t.diagnostic(`${sent} answers from ${covered.size} operations in ${seconds} s; ${failures.length} failing`);
      t.diagnostic(
        `statuses: ${[...statuses]
          .sort((a, b) => a[0] - b[0])
          .map(([status, n]) => `${status} x ${n}`)
          .join(', ')}`,
      );
      const uncovered = onlyCases === undefined ? operations.filter((o) => !covered.has(o)).map((o) => `${o.method} ${o.path}`) : [];

      failures.sort((a, b) => a.no - b.no);
      const tally = new Map<string, number>();
      for (const failure of failures) for (const problem of failure.problems) tally.set(problem, (tally.get(problem) ?? 0) + 1);
      // What the server logged of its unexpected errors: the kind, message and first frame of the service's own code.
      const errorsLogged = context.server.logs
        .filter((line) => line.includes('"request failed"'))
        .map((line) => {
          const entry = JSON.parse(line) as { error?: { name?: string; message?: string; stack?: string } };
          const frame = (entry.error?.stack ?? '').split('\n').find((l) => l.includes('/dist/') && !l.includes('node_modules'));
          const where =
            frame === undefined
              ? ''
              : ` ${frame
                  .trim()
                  .replace(/\S*\/dist\//, '(')
                  .replace(/:\d+\)?$/, ')')}`;
          return `${entry.error?.name ?? '?'}: ${clip(entry.error?.message ?? '', 160)}${where}`;
        });
      const logTally = new Map<string, number>();
      for (const line of errorsLogged) logTally.set(line, (logTally.get(line) ?? 0) + 1);
      assert.ok(
        failures.length === 0 && stopped === undefined && uncovered.length === 0 && health === '200' && ready === '200',
        [
          `${failures.length} of ${sent} hostile requests on ${context.kind} failed (seed ${seed}). Replay with STRATUM_FUZZ_SEED=${seed}, ` +
            `only the failing cases with STRATUM_FUZZ_SEED=${seed} STRATUM_FUZZ_CASES=${[...new Set(failures.map((f) => f.no))].join(',')}`,
          `GET /healthz answered ${health}, GET /readyz ${ready} afterwards.`,
          ...(stopped === undefined ? [] : [`From case #${stopped.no} on ${stopped.why}; ${stopped.skipped} cases were not sent.`]),
          ...(uncovered.length === 0 ? [] : [`No request reached ${uncovered.join(', ')}.`]),
          'Problems:',
          ...[...tally].sort((a, b) => b[1] - a[1]).map(([problem, n]) => `  ${n} x ${problem}`),
          'Errors the server logged:',
          ...[...logTally].sort((a, b) => b[1] - a[1]).map(([line, n]) => `  ${n} x ${line}`),
          'Cases:',
          ...failures.map((failure) => `  ${failure.line}`),
        ].join('\n'),
      );
    },
  );
});

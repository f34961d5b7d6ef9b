import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import { ApiDescription, type DescribedOperation } from './api-description.ts';
import { describeEachStore, writeFirstState, type RequestOptions, type Response, type TestServer } from './harness.ts';
import { registry } from '../src/resources/index.ts';
import { exampleModuleSource } from '../src/resources/examples.ts';
import { GitServer } from './git-server.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- examples and answers are JSON of every shape */
type Json = any;

/**
 * The records of one organization, made from the description's examples: the id of the record
 * made in place of each placeholder id, and of each type.
 */
interface Records {
  real: Map<string, string>;
  byType: Map<string, string>;
}

const copy = (records: Records): Records => ({ real: new Map(records.real), byType: new Map(records.byType) });

/** The example of a request body or of an answer, of whatever media type it is given in. */
const exampleOf = (content: Json): Json => Object.values((content?.content ?? {}) as Record<string, { example?: unknown }>)[0]?.example;

/** The success status an operation lists. */
/** What an operation answers when all is well: its success, or 403 for one the document lists only as refused. */
const successOf = (op: DescribedOperation) => {
  const success = Object.keys(op.operation.responses).find((s) => s.startsWith('2'));
  return success === undefined ? 403 : Number(success);
};

const isJsonApi = (op: DescribedOperation) => op.path.startsWith('/api/v1/') && op.operationId !== 'atomic_operations';
/** A relationship endpoint's operation (numbered when its resource is mounted at several paths). */
const isRelationship = (op: DescribedOperation) => /_relationship(_\d+)?$/.test(op.operationId);
const globalTypes = [...registry.all()].filter((resource) => registry.isGlobal(resource)).map((resource) => resource.type);

const kindOf = (op: DescribedOperation) => /^[a-z]+/.exec(op.operationId)?.[0] ?? '';
/**
 * Operations whose success is another server's answer (a notification destination): their errors
 * are walked here, their successes in test/notifications.test.ts, against a receiver of its own.
 */
const reachesOutside = (op: DescribedOperation) => op.path.startsWith('/notification/v1/');

/** A module version's zip: reached by the signed link its /download gives, not by its path alone. */
const archiveOperation = 'registry_module_archive';

describeEachStore('every answer is what the API description says', (context) => {
  let api: ApiDescription;
  // Records of the whole service (actions, federated credentials) are made once, not in each
  // organization the walk makes: their own tests (test/schedules-and-state-sharing.test.ts and the
  // authorization matrix) hold them; this walk holds the records of organizations.
  const operations = () => api.operations().filter((op) => !globalTypes.includes(op.tag));
  /** The placeholder ids of the examples: the ids of the records the create examples answer. */
  const placeholders = new Set<string>();
  /** The operations that create what a placeholder stands for. */
  const creators = new Map<string, DescribedOperation>();
  let records: Records;
  // The module example's repository, served on loopback: publishing a module reads its tags.
  let git: GitServer;
  let moduleSource: string;

  const send = async (op: DescribedOperation, url: string, options: RequestOptions = {}, what = 'example'): Promise<Response> => {
    const response = await context.server.request(op.method.toUpperCase(), url, options);
    api.check(op, response, `${what}: ${url}`);
    return response;
  };

  /** A value with every placeholder id replaced by the id of the record made in its place; undefined while one is missing. */
  const substitute = (value: Json, given: Records): Json => {
    const text = JSON.stringify(value ?? null);
    const missing: string[] = [];
    // Anywhere in a string: an href names its records in a path.
    const replaced = text
      .split(exampleModuleSource)
      .join(moduleSource)
      // Placeholders of sequence ids (jobs) are numbers past 9000000000, which no other example holds.
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b90000000\d\d\b/g, (id) => {
        if (!placeholders.has(id)) return id;
        const real = given.real.get(id);
        if (real === undefined) missing.push(id);
        return real ?? id;
      });
    return missing.length > 0 ? undefined : JSON.parse(replaced);
  };

  /** The operation's path with its parameters' examples, placeholders replaced; `with` sets parameters by name. */
  const urlOf = (op: DescribedOperation, given: Records, set: Record<string, string> = {}): string | undefined => {
    const missing: string[] = [];
    const url = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const parameter = op.parameters.find((p) => p.name === name);
      const value = set[name] ?? substitute(parameter?.example, given);
      if (typeof value !== 'string') missing.push(name);
      return encodeURIComponent(String(value));
    });
    return missing.length > 0 ? undefined : url;
  };

  /** The path and query of the link /download gives for the module version whose zip `path` names. */
  const signedLink = async (path: string): Promise<string> => {
    const download = path.replace('/v1/download/', '/v1/').replace(/\/module\.zip$/, '/download');
    const answer = await context.server.get(download);
    assert.equal(answer.status, 204, answer.text);
    const link = new URL(answer.headers.get('x-terraform-get') ?? '');
    return `${link.pathname}${link.search}`;
  };

  /** Sends the documented example of a create, and records the placeholder it answers for. */
  const create = async (op: DescribedOperation, given: Records, tenantName?: string): Promise<boolean> => {
    const url = urlOf(op, given);
    const example = exampleOf(op.operation.requestBody);
    // A create whose client chooses the id (a webhook's) names a new record: a fresh id each time it is sent.
    const chosen: unknown = example?.data?.id;
    const fresh = typeof chosen === 'string' && placeholders.has(chosen) && !given.real.has(chosen);
    const body = substitute(example, fresh ? { ...given, real: new Map([...given.real, [chosen, randomUUID()]]) } : given);
    if (url === undefined || body === undefined) return false;
    if (tenantName !== undefined && body.data?.attributes !== undefined) body.data.attributes.name = tenantName;
    const response = await send(op, url, { body, headers: { 'content-type': Object.keys(op.operation.requestBody.content)[0] ?? '' } });
    assert.equal(response.status, successOf(op), `the example of ${op.operationId} at ${url} failed: ${response.text}`);
    const placeholder = exampleOf(op.operation.responses[String(successOf(op))]);
    const id: unknown = response.body.data?.id ?? response.body.id;
    given.real.set(placeholder.data?.id ?? placeholder.id, String(id));
    given.byType.set(op.tag, String(id));
    return true;
  };

  /**
   * The records no path creates, made the way the server makes them: a workspace's state version
   * (`history`), by writing a state through the state backend, standing for the reads' example id.
   */
  const writtenByServer = async (given: Records): Promise<void> => {
    const read = operations().find((op) => op.tag === 'history' && kindOf(op) === 'read');
    const example: unknown = read?.parameters.find((p) => p.name === 'historyId')?.example;
    const organization = given.byType.get('organization');
    const workspace = given.byType.get('workspace');
    if (typeof example !== 'string' || organization === undefined || workspace === undefined) return;
    placeholders.add(example);
    const id = await writeFirstState(context.server, organization, workspace);
    given.real.set(example, id);
    given.byType.set('history', id);
  };

  /**
   * An organization with a record of every type, each made by sending its create example, and
   * every loose link of each record linked. `skip`: a type left out, with what needs it.
   */
  const makeRecords = async (options: { tenantName?: string; skip?: string; unlinked?: true } = {}): Promise<Records> => {
    const given: Records = { real: new Map(), byType: new Map() };
    const creates = operations().filter((op) => isJsonApi(op) && kindOf(op) === 'create');
    const pending = new Set(creates.map((op) => op.tag).filter((type) => type !== options.skip));
    for (let progressed = true; progressed && pending.size > 0;) {
      progressed = false;
      for (const type of pending) {
        for (const op of creates.filter((o) => o.tag === type)) {
          const tenant = op.parameters.length === 0 ? options.tenantName : undefined;
          if (await create(op, given, tenant)) {
            pending.delete(type);
            progressed = true;
            break;
          }
        }
      }
    }
    if (options.skip === undefined) assert.deepEqual([...pending], [], 'records whose create example names no record made before');
    await writtenByServer(given);
    // Records the server alone makes (a job's steps): the first one listed under the records made.
    const made = new Set(creates.map((op) => op.tag));
    for (const op of operations().filter((o) => isJsonApi(o) && kindOf(o) === 'list' && !made.has(o.tag) && !isRelationship(o))) {
      const url = given.byType.has(op.tag) ? undefined : urlOf(op, given);
      const placeholder: unknown = exampleOf(op.operation.responses[String(successOf(op))])?.data?.[0]?.id;
      if (url === undefined || typeof placeholder !== 'string') continue;
      const first: unknown = (await send(op, url)).body.data?.[0]?.id;
      if (typeof first !== 'string') continue;
      placeholders.add(placeholder);
      given.real.set(placeholder, first);
      given.byType.set(op.tag, first);
    }
    if (options.unlinked === true) return given;
    const linked = new Set<string>();
    for (const op of operations().filter((o) => kindOf(o) === 'update' && isRelationship(o))) {
      // Once per record, at the first of its paths.
      if (linked.has(op.tag) || urlOf(op, given) === undefined) continue;
      linked.add(op.tag);
      const loose = Object.entries(api.schema(`${op.tag}Resource`).properties.relationships.properties as Record<string, Json>);
      for (const [name, member] of loose) {
        // A relationship the description marks read-only (a workspace's webhook) is linked by its records.
        const type: string | undefined = member.readOnly === true ? undefined : member.properties.data.oneOf?.[0]?.properties.type.const;
        const target = type === undefined ? undefined : given.byType.get(type);
        const url = urlOf(op, given, { relationship: name });
        if (target === undefined || url === undefined) continue;
        const response = await send(op, url, { body: { data: { type, id: target } } }, 'link');
        assert.equal(response.status, 204, response.text);
      }
    }
    return given;
  };

  after(async () => {
    await git.stop();
  });

  before(async () => {
    git = await GitServer.start();
    moduleSource = git.repository('network', [
      { files: { 'README.md': '# Network\n', 'main.tf': 'variable "region" {}\n' }, tags: ['v1.0.0'] },
    ]);
    api = await ApiDescription.of((await context.server.get('/api/openapi.json', { token: null })).body);
    for (const op of operations()) {
      if (op.method !== 'post') continue;
      const answer = exampleOf(op.operation.responses[String(successOf(op))]);
      const id: unknown = answer?.data?.id ?? answer?.id;
      if (typeof id === 'string') {
        placeholders.add(id);
        creators.set(id, op);
      }
    }
  });

  it('sends the example of every operation, its placeholder ids replaced, and each succeeds as described', async () => {
    records = await makeRecords();
    for (const op of operations()) {
      if (reachesOutside(op)) continue;
      // A create runs where no record of its type is yet (names are unique), a delete on records of its own.
      const kind = kindOf(op);
      let given = records;
      if (isJsonApi(op) && kind === 'create') given = await makeRecords({ tenantName: `org-${randomUUID()}`, skip: op.tag });
      else if (isJsonApi(op) && kind === 'delete') given = await makeRecords({ tenantName: `org-${randomUUID()}` });
      else if (kind === 'revoke') given = copy(records);
      // What the path names but was not made yet (a token to revoke): made by its own example.
      for (const parameter of op.parameters) {
        const creator = creators.get(parameter.example);
        if (creator !== undefined && (kind === 'revoke' || !given.real.has(parameter.example))) await create(creator, given);
      }
      if (isJsonApi(op) && kind === 'create') {
        // The tenant's example was sent as it stands above; again, it needs a name of its own.
        const tenantName = op.parameters.length === 0 ? `org-${randomUUID()}` : undefined;
        assert.ok(await create(op, given, tenantName), `the example of ${op.operationId} names a record that was not made`);
        continue;
      }
      const body = op.operation.requestBody === undefined ? undefined : substitute(exampleOf(op.operation.requestBody), given);
      if (op.operation.requestBody !== undefined) assert.notEqual(body, undefined, `${op.operationId} has no example`);
      const names: string[] =
        kind === 'read' && isRelationship(op) ? (op.parameters.find((p) => p.name === 'relationship')?.schema.enum ?? []) : [''];
      for (const name of names) {
        const path = urlOf(op, given, name === '' ? {} : { relationship: name });
        assert.ok(path !== undefined, `${op.operationId}: no record for the path ${op.path}`);
        const url = op.operationId === archiveOperation ? await signedLink(path) : path;
        const contentType = op.operation.requestBody === undefined ? undefined : Object.keys(op.operation.requestBody.content)[0];
        const response = await send(op, url, { body, ...(contentType === undefined ? {} : { headers: { 'content-type': contentType } }) });
        assert.equal(response.status, successOf(op), `${op.method} ${url}: ${response.text}`);
      }
      if (op.method === 'get' && isJsonApi(op) && !isRelationship(op)) await readMore(op, given);
    }
    assert.deepEqual(api.problems, []);
    for (const op of operations().filter((o) => !reachesOutside(o)))
      assert.ok(api.seen.get(op.operationId)?.has(successOf(op)), `${op.operationId} was not exercised`);
  });

  it('answers a related read of a link that links nothing with data null, as described', async () => {
    const unlinked = await makeRecords({ tenantName: `org-${randomUUID()}`, unlinked: true });
    let empty = 0;
    for (const op of operations().filter((o) => kindOf(o) === 'read' && isJsonApi(o) && !/\{\w+\}$/.test(o.path))) {
      const url = urlOf(op, unlinked);
      if (url === undefined || isRelationship(op)) continue;
      const response = await send(op, url, {}, 'nothing linked');
      assert.equal(response.status, 200, response.text);
      if (response.body.data === null) empty++;
    }
    assert.ok(empty > 0, 'no related read found nothing linked');
    assert.deepEqual(api.problems, []);
  });

  /** A list's page with totals and a read's includes: what only those parameters add to an answer. */
  const readMore = async (op: DescribedOperation, given: Records) => {
    const url = urlOf(op, given) ?? '';
    const included = exampleOf(op.operation.responses['200']);
    const record = Array.isArray(included?.data) ? included.data[0] : included?.data;
    const names = Object.keys(api.schema(`${String(record?.type)}Resource`)?.properties.relationships.properties ?? {});
    const include = names.length === 0 ? '' : `include=${names.join(',')}`;
    const paged = kindOf(op) === 'list' ? 'page[number]=1&page[size]=2&page[totals]&' : '';
    const response = await send(op, `${url}?${paged}${include}`, {}, 'included');
    assert.equal(response.status, 200, response.text);
  };

  it('answers every error an operation can meet with a status, media type and document the description gives', async () => {
    const server: TestServer = context.server;
    const teamType = 'team';
    const readers = `readers-${randomUUID()}`;
    const organization = records.byType.get('organization') ?? '';
    const team = await server.post(`/api/v1/organization/${organization}/${teamType}`, {
      data: { type: teamType, attributes: { name: readers, role: 'read' } },
    });
    assert.equal(team.status, 201, team.text);
    const reader = await server.token({ groups: [readers] });
    const expect = async (op: DescribedOperation, url: string, options: RequestOptions, status: number | null, what: string) => {
      const response = await send(op, url, options, what);
      if (status !== null) assert.equal(response.status, status, `${what}: ${op.method} ${url}: ${response.text}`);
      return response;
    };
    for (const op of operations()) {
      for (const parameter of op.parameters) {
        const creator = creators.get(parameter.example);
        if (creator !== undefined && !records.real.has(parameter.example)) await create(creator, records);
      }
      const url = urlOf(op, records) ?? '';
      const kind = kindOf(op);
      const body = op.operation.requestBody === undefined ? undefined : substitute(exampleOf(op.operation.requestBody), records);
      const contentType = op.operation.requestBody === undefined ? undefined : Object.keys(op.operation.requestBody.content)[0];
      const withBody = (options: RequestOptions = {}): RequestOptions => ({
        ...options,
        ...(body === undefined ? {} : { body }),
        headers: { ...(contentType === undefined ? {} : { 'content-type': contentType }), ...options.headers },
      });
      const isPublic = Array.isArray(op.operation.security) && op.operation.security.length === 0;
      if (!isPublic) await expect(op, url, withBody({ token: null }), 401, 'no token');
      await expect(op, `${url}?unknownParameter=1`, withBody(), null, 'an unknown query parameter');
      const ids = op.parameters.filter((p) => p.schema?.format === 'uuid' || /Id$/.test(p.name));
      const last = ids.at(-1);
      if (last !== undefined) await expect(op, urlOf(op, records, { [last.name]: randomUUID() }) ?? '', withBody(), 404, 'an unknown id');
      if (op.parameters.some((p) => p.name === 'relationship')) {
        await expect(op, urlOf(op, records, { relationship: 'nothing' }) ?? '', withBody(), 404, 'an unknown relationship');
      }
      if (body !== undefined) {
        await expect(op, url, { raw: JSON.stringify(body), headers: { 'content-type': 'text/plain' } }, 415, 'another media type');
        await expect(op, url, { raw: '{"data": ', headers: { 'content-type': contentType ?? '' } }, 400, 'malformed JSON');
      }
      if (!isPublic) {
        // A member reads what an administrator reads, and changes nothing without the permission.
        const jsonApi = isJsonApi(op) || op.operationId === 'atomic_operations';
        // Except a record a team flag gates (a change of the audit trail): a member without the
        // flag finds none, an empty list and no one record.
        const gated = op.method === 'get' && kind === 'read' && url.includes('/auditEvent/');
        const refused = jsonApi ? (gated ? 404 : op.method === 'get' ? 200 : 403) : null;
        await expect(op, url, withBody({ token: reader }), refused, 'a member without the permission');
      }
      if (!isJsonApi(op) || (body === undefined && kind !== 'delete' && kind !== 'read')) continue;
      const type = body?.data?.type;
      if (kind === 'create') {
        await expect(op, url, { body: { data: { ...body.data, type: 'nothing' } } }, 409, 'another type');
        // A record whose client chooses its id (a webhook) takes one of the declared form alone.
        if (body.data.id === undefined) await expect(op, url, { body: { data: { ...body.data, id: randomUUID() } } }, 403, 'a client id');
        else await expect(op, url, { body: { data: { ...body.data, id: 'not an id' } } }, 422, 'a client id of another form');
        await expect(op, url, { body: { data: { type, attributes: {} } } }, 422, 'nothing required');
      } else if (kind === 'update' && !isRelationship(op)) {
        const [name] = Object.keys(body.data.attributes as object);
        await expect(op, url, { body: { data: { type: 'nothing' } } }, 409, 'another type');
        await expect(op, url, { body: { data: { type, id: randomUUID() } } }, 409, 'another id');
        await expect(op, url, { body: { data: { type, attributes: { [name ?? 'name']: { not: 'a value' } } } } }, 422, 'a wrong type');
        await expect(op, url, withBody({ headers: { 'if-match': '"stale"' } }), 412, 'a stale If-Match');
      } else if (kind === 'update') {
        await expect(op, url, { body: { data: { type: 'nothing', id: randomUUID() } } }, null, 'a link of another type');
        await expect(op, url, { body: { data: [] } }, 400, 'a to-many linkage');
      } else if (kind === 'delete') {
        await expect(op, url, { headers: { 'if-match': '"stale"' } }, 412, 'a stale If-Match');
      } else if (kind === 'read' && !isRelationship(op) && op.operation.responses['304'] !== undefined) {
        const etag = (await send(op, url)).headers.get('etag') ?? '';
        await expect(op, url, { headers: { 'if-none-match': etag } }, 304, 'If-None-Match');
      }
    }
    assert.deepEqual(api.problems, []);
    const statuses = new Set([...api.seen.values()].flatMap((s) => [...s]));
    for (const status of [304, 400, 401, 403, 404, 409, 412, 415, 422]) assert.ok(statuses.has(status), `no operation answered ${status}`);
  });
});

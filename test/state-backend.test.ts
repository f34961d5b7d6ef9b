/**
 * Terraform's http state backend as Stratum serves it: the protocol (lock, 423 with the holder's
 * info, the lock ID on writes, Content-MD5), serial and lineage checks, every state a `history`
 * record, the state sealed in the store, the web UI's state pages and rollback, who may reach
 * state, job credentials, and Terraform (a real binary or the stand-in) run against it end to end.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { before, describe, it } from 'node:test';
import { mintStateCredential } from '../src/auth/tokens.ts';
import { data, literal } from './graphql-helpers.ts';
import {
  assertError,
  createOrganization,
  createRecord,
  createTemplate,
  createWorkspace,
  describeEachStore,
  resourceDocument,
  writeFirstState,
  type Response,
} from './harness.ts';
import { assertRawErrorDocument, rawRequest, requestHead } from './raw-http.ts';
import { runTerraform, terraformProject } from './state-backend-terraform.ts';
import { binaryName } from './terraform-binary.ts';

/** A Terraform state (format 4) holding a secret output and a resource, as Terraform 1.11 writes one. */
function stateText(serial: number, lineage: string, secret = 'pa55-s3cret'): string {
  const state = {
    version: 4,
    terraform_version: '1.11.4',
    serial,
    lineage,
    outputs: { password: { value: secret, type: 'string', sensitive: true }, name: { value: 'alpha', type: 'string' } },
    resources: [
      {
        mode: 'managed',
        type: 'terraform_data',
        name: 'greeting',
        provider: 'provider["terraform.io/builtin/terraform"]',
        instances: [
          {
            schema_version: 0,
            // Null where Terraform writes a value with its type: `show -json` prints those unwrapped.
            attributes: { id: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0', input: null, output: null, triggers_replace: null },
            sensitive_attributes: [],
            dependencies: [],
          },
        ],
      },
    ],
    check_results: null,
  };
  return `${JSON.stringify(state, null, 2)}\n`;
}

const lockInfo = (id = randomUUID()) =>
  JSON.stringify({
    ID: id,
    Operation: 'OperationTypeApply',
    Info: '',
    Who: 'tester@host',
    Version: '1.11.4',
    Created: new Date().toISOString(),
    Path: '',
  });

const md5 = (text: string) => createHash('md5').update(text).digest('base64');
const basic = (token: string) => `Basic ${Buffer.from(`stratum:${token}`).toString('base64')}`;

// No executor: a job made here stays pending, so its credential works until the test ends it.
describeEachStore('the Terraform http state backend', { env: { STRATUM_STATE_MAX_MIB: '2', STRATUM_EXECUTOR: 'off' } }, (context) => {
  let organization: string;
  let adminBasic: string;
  const base = (workspace: string, org = organization) => `/tfstate/v1/organization/${org}/workspace/${workspace}`;
  /** A backend request as Terraform sends it: Basic auth, and a body with its Content-MD5. */
  const send = (method: string, path: string, body?: string, authorization = adminBasic, headers: Record<string, string> = {}) =>
    context.server.request(method, path, {
      token: null,
      ...(body === undefined ? {} : { raw: body }),
      headers: {
        authorization,
        ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-md5': md5(body) }),
        ...headers,
      },
    });
  const historyOf = async (workspace: string) => {
    const response = await context.server.get(`/api/v1/organization/${organization}/workspace/${workspace}?include=history`);
    assert.equal(response.status, 200, response.text);
    return ((response.body.included ?? []) as { type: string; id: string; attributes: Record<string, unknown> }[])
      .filter((record) => record.type === 'history')
      .sort((a, b) => Number(a.attributes.serial) - Number(b.attributes.serial));
  };
  /** A job of the workspace, pending while no executor runs: a state credential works only while its job runs. */
  const runningJob = async (workspace: string) => {
    const template = await createTemplate(context.server, organization, {
      tcl: Buffer.from('flow:\n  - type: terraformPlan\n    step: 100\n').toString('base64'),
    });
    return createRecord(
      context.server,
      `/api/v1/organization/${organization}/job`,
      'job',
      { templateReference: template },
      {
        relationships: { workspace: { data: { type: 'workspace', id: workspace } } },
      },
    );
  };
  const team = (group: string, attributes: Record<string, unknown>) =>
    createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: group, ...attributes });

  before(async () => {
    organization = await createOrganization(context.server);
    adminBasic = basic(context.server.adminToken);
  });

  describe('the protocol', () => {
    let workspace: string;
    const lineage = randomUUID();
    const held = lockInfo();
    before(async () => {
      workspace = await createWorkspace(context.server, organization);
    });

    it('answers 204 while the workspace has no state', async () => {
      assert.equal((await send('GET', `${base(workspace)}/state`)).status, 204);
      assertError(await send('GET', `${base(workspace)}/state/terraform.tfstate`), 404);
    });

    it('locks, and answers a second lock 423 with the holder lock info', async () => {
      assert.equal((await send('LOCK', `${base(workspace)}/lock`, held)).status, 200);
      const again = await send('LOCK', `${base(workspace)}/lock`, lockInfo());
      assert.equal(again.status, 423);
      assert.deepEqual(again.body, JSON.parse(held));
      assert.equal((await send('LOCK', `${base(workspace)}/lock`, held)).status, 423, 'the same ID again is refused too');
    });

    it('refuses a write without the lock ID, or with another, while locked (409)', async () => {
      assertError(await send('POST', `${base(workspace)}/state`, stateText(1, lineage)), 409);
      assertError(await send('POST', `${base(workspace)}/state?ID=${randomUUID()}`, stateText(1, lineage)), 409);
    });

    it('refuses a body whose Content-MD5 does not match (400)', async () => {
      const text = stateText(1, lineage);
      const id = JSON.parse(held).ID as string;
      assertError(await send('POST', `${base(workspace)}/state?ID=${id}`, text, adminBasic, { 'content-md5': md5('other') }), 400);
    });

    it('writes under the lock ID; the state reads back byte for byte and becomes a history record', async () => {
      const text = stateText(1, lineage);
      const id = JSON.parse(held).ID as string;
      assert.equal((await send('POST', `${base(workspace)}/state?ID=${id}`, text)).status, 200);
      const read = await send('GET', `${base(workspace)}/state`);
      assert.equal(read.status, 200);
      assert.equal(read.text, text);
      const [record] = await historyOf(workspace);
      assert.ok(record !== undefined);
      assert.equal(record.attributes.serial, 1);
      assert.equal(record.attributes.lineage, lineage);
      assert.equal(record.attributes.md5, createHash('md5').update(text).digest('hex'));
      assert.equal(record.attributes.output, `${context.server.url}${base(workspace)}/state/${record.id}.json`);
    });

    it('refuses an unlock naming another lock (409 with the holder), and releases its own', async () => {
      const other = await send('UNLOCK', `${base(workspace)}/lock`, lockInfo());
      assert.equal(other.status, 409);
      assert.equal(other.body.ID, JSON.parse(held).ID);
      assert.equal((await send('UNLOCK', `${base(workspace)}/lock`, held)).status, 200);
      assert.equal((await send('LOCK', `${base(workspace)}/lock`, lockInfo())).status, 200, 'free again');
      assert.equal((await send('DELETE', `${base(workspace)}/lock`)).status, 200, 'force-unlocked');
      assertError(await send('POST', `${base(workspace)}/state?ID=${JSON.parse(held).ID as string}`, stateText(2, lineage)), 409);
    });

    it('refuses an older serial, the same serial with other contents, and another lineage unless forced', async () => {
      assert.equal((await send('POST', `${base(workspace)}/state`, stateText(3, lineage))).status, 200);
      const older = assertError(await send('POST', `${base(workspace)}/state`, stateText(2, lineage)), 409);
      assert.match(older[0]?.detail ?? '', /serial 2 is older than .* 3/);
      assert.equal(
        (await send('PUT', `${base(workspace)}/state`, stateText(3, lineage))).status,
        200,
        'a repeat is taken (PUT as update_method)',
      );
      assertError(await send('POST', `${base(workspace)}/state`, stateText(3, lineage, 'changed')), 409);
      const other = randomUUID();
      assert.match(assertError(await send('POST', `${base(workspace)}/state`, stateText(4, other)), 409)[0]?.detail ?? '', /lineage/);
      assert.equal((await send('POST', `${base(workspace)}/state?force=true`, stateText(1, other))).status, 200);
      assert.deepEqual(
        (await historyOf(workspace)).map((record) => [record.attributes.serial, record.attributes.lineage]),
        [
          [1, lineage],
          [1, other],
          [3, lineage],
        ],
      );
      assertError(await send('POST', `${base(workspace)}/state`, 'not json'), 400);
      assertError(await send('POST', `${base(workspace)}/state`, '{"serial": -1, "lineage": "x"}'), 400);
    });

    it('takes states above the API body limit up to STRATUM_STATE_MAX_MIB, and refuses larger ones (413)', async () => {
      const ws = await createWorkspace(context.server, organization);
      const big = stateText(1, 'big', 'x'.repeat(1536 * 1024));
      assert.equal((await send('POST', `${base(ws)}/state`, big)).status, 200);
      assert.equal((await send('GET', `${base(ws)}/state`)).text, big);
      const huge = stateText(2, 'big', 'x'.repeat(2560 * 1024));
      // The server answers on the declared length and closes, unread body and all: a client still writing
      // it may meet the reset before the answer (fetch does, at some sizes). Only the head is sent here.
      const refused = await rawRequest(context.server.url, {
        head: requestHead('POST', `${base(ws)}/state`, {
          authorization: adminBasic,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(huge),
          'content-md5': md5(huge),
        }),
        waitMs: 5000,
      });
      assertRawErrorDocument(refused, 413);
      assert.equal(refused.body.errors.length, 1);
      assert.equal((await historyOf(ws)).length, 1);
    });

    it('keeps the state sealed in the store: no row holds its text', async () => {
      const secret = `marker-${randomUUID()}`;
      const ws = await createWorkspace(context.server, organization);
      assert.equal((await send('POST', `${base(ws)}/state`, stateText(1, randomUUID(), secret))).status, 200);
      const [record] = await historyOf(ws);
      const rows = await context.server.query('select * from state_version where id = $1', [record?.id]);
      assert.equal(rows.length, 1);
      assert.doesNotMatch(JSON.stringify(rows), new RegExp(secret));
      assert.doesNotMatch(JSON.stringify(rows), /terraform_data/);
      assert.doesNotMatch(
        JSON.stringify(await context.server.query('select * from history where id = $1', [record?.id])),
        new RegExp(secret),
      );
      const answer = await context.server.get(`/api/v1/organization/${organization}/workspace/${ws}/history/${record?.id}`);
      assert.equal(answer.status, 200);
      assert.doesNotMatch(answer.text, new RegExp(secret));
    });
  });

  describe('the web UI pages and the API', () => {
    let workspace: string;
    let first: string;
    before(async () => {
      workspace = await createWorkspace(context.server, organization);
      assert.equal((await send('POST', `${base(workspace)}/state`, stateText(1, 'lin', 'one'))).status, 200);
      assert.equal((await send('POST', `${base(workspace)}/state`, stateText(2, 'lin', 'two'))).status, 200);
      first = (await historyOf(workspace))[0]?.id ?? '';
    });

    it('serves a version in show -json form and raw, and the current state, to a bearer token', async () => {
      const shown = await context.server.get(`${base(workspace)}/state/${first}.json`);
      assert.equal(shown.status, 200, shown.text);
      assert.equal(shown.body.values.outputs.password.value, 'one');
      assert.equal(shown.body.values.outputs.password.sensitive, true);
      assert.deepEqual(shown.body.values.root_module.resources[0], {
        address: 'terraform_data.greeting',
        mode: 'managed',
        type: 'terraform_data',
        name: 'greeting',
        provider_name: 'terraform.io/builtin/terraform',
        schema_version: 0,
        values: { id: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0', input: null, output: null, triggers_replace: null },
        depends_on: [],
      });
      const raw = await context.server.get(`${base(workspace)}/state/${first}.raw.json`);
      assert.equal(raw.text, stateText(1, 'lin', 'one'));
      assert.equal((await context.server.get(`${base(workspace)}/state/terraform.tfstate`)).text, stateText(2, 'lin', 'two'));
      assertError(await context.server.get(`${base(workspace)}/state/${randomUUID()}.json`), 404);
      assertError(await context.server.get(`${base(workspace)}/state/${first}.txt`), 404);
    });

    it('rolls back to a version as a new history record with a higher serial', async () => {
      const rolled: Response = await context.server.request('PUT', `${base(workspace)}/rollback/${first}.json`);
      assert.equal(rolled.status, 201, rolled.text);
      assert.equal(rolled.body.data.attributes.serial, 3);
      const current = JSON.parse((await send('GET', `${base(workspace)}/state`)).text);
      assert.equal(current.serial, 3);
      assert.equal(current.outputs.password.value, 'one');
      assert.equal((await historyOf(workspace)).length, 3);
    });

    it('lists history through GraphQL, and refuses to write it through the API', async () => {
      const answer = await data(
        context.server,
        `{ workspace(ids: [${literal(workspace)}]) { edges { node { history { edges { node { id serial lineage md5 jobReference output } } } } } } }`,
      );
      assert.equal(answer.workspace.edges[0].node.history.edges.length, 3);
      const path = `/api/v1/organization/${organization}/workspace/${workspace}/history`;
      // No path writes one (405), and a write through another door meets its policy (403).
      assertError(await context.server.post(path, { data: { type: 'history', attributes: { serial: 9 } } }), 405);
      assertError(await context.server.delete(`${path}/${first}`), 405);
      assertError(
        await context.server.request('PATCH', `${path}/${first}/relationships/workspace`, {
          body: { data: { type: 'workspace', id: workspace } },
        }),
        405,
      );
      const mutation = await context.server.post('/graphql/api/v1', {
        query: `mutation { workspace(ids: [${literal(workspace)}]) { edges { node { history(op: DELETE, ids: [${literal(first)}]) { edges { node { id } } } } } } }`,
      });
      assert.match(mutation.text, /made and changed by the server/);
    });
  });

  describe('who reaches state', () => {
    let workspace: string;
    const path = () => `${base(workspace)}/state`;
    before(async () => {
      workspace = await createWorkspace(context.server, organization);
      await send('POST', path(), stateText(1, 'x'));
    });

    it('refuses missing or bad credentials (401 with a Basic challenge)', async () => {
      const none = await context.server.request('GET', path(), { token: null });
      assert.equal(none.status, 401);
      assert.match(none.headers.get('www-authenticate') ?? '', /^Basic/);
      assert.equal((await send('GET', path(), undefined, basic('not-a-token'))).status, 401);
      assert.equal((await send('GET', path(), undefined, `Basic ${Buffer.from('only-user').toString('base64')}`)).status, 401);
    });

    it('refuses readers (403), and another organization or an unknown workspace (404)', async () => {
      const group = `readers-${randomUUID()}`;
      await team(group, { role: 'read' });
      const reader = basic(await context.server.token({ groups: [group] }));
      assertError(await send('GET', path(), undefined, reader), 403);
      assertError(await send('LOCK', `${base(workspace)}/lock`, lockInfo(), reader), 403);
      const stranger = basic(await context.server.token({ groups: [`nobody-${randomUUID()}`] }));
      assertError(await send('GET', path(), undefined, stranger), 404);
      const foreign = await createOrganization(context.server);
      assertError(await send('GET', `${base(workspace, foreign)}/state`), 404);
      assertError(await send('GET', `${base(randomUUID())}/state`), 404);
    });

    it('serves a team with manageState, and a workspace or project grant with it', async () => {
      const group = `state-${randomUUID()}`;
      await team(group, { role: 'custom', manageState: true });
      assert.equal((await send('GET', path(), undefined, basic(await context.server.token({ groups: [group] })))).status, 200);
      const granted = `granted-${randomUUID()}`;
      await createRecord(context.server, `/api/v1/organization/${organization}/workspace/${workspace}/access`, 'access', {
        name: granted,
        role: 'custom',
        manageState: true,
      });
      assert.equal((await send('GET', path(), undefined, basic(await context.server.token({ groups: [granted] })))).status, 200);
      const project = await createRecord(context.server, `/api/v1/organization/${organization}/project`, 'project', {
        name: `p-${randomUUID()}`,
      });
      const inProject = await createWorkspace(context.server, organization);
      await context.server.patch(`/api/v1/organization/${organization}/workspace/${inProject}/relationships/project`, {
        data: { type: 'project', id: project },
      });
      const viaProject = `project-${randomUUID()}`;
      await createRecord(context.server, `/api/v1/organization/${organization}/project/${project}/projectAccess`, 'project_access', {
        name: viaProject,
        role: 'write',
      });
      assert.equal(
        (await send('GET', `${base(inProject)}/state`, undefined, basic(await context.server.token({ groups: [viaProject] })))).status,
        204,
      );
    });

    it('takes a job credential for its workspace alone, and nowhere else', async () => {
      const job = await runningJob(workspace);
      const credential = await mintStateCredential(context.server.signer, {
        organizationId: organization,
        workspaceId: workspace,
        jobReference: job,
      });
      const info = lockInfo();
      assert.equal((await send('LOCK', `${base(workspace)}/lock`, info, basic(credential))).status, 200);
      assert.equal((await send('POST', `${path()}?ID=${JSON.parse(info).ID as string}`, stateText(2, 'x'), basic(credential))).status, 200);
      assertError(await send('DELETE', `${base(workspace)}/lock`, undefined, basic(credential)), 403);
      assert.equal((await send('UNLOCK', `${base(workspace)}/lock`, info, basic(credential))).status, 200);
      const latest = (await historyOf(workspace)).at(-1);
      assert.ok(latest !== undefined);
      assert.equal(latest.attributes.jobReference, job);
      // The version names whoever started the job, as Terrakube's States tab shows it; the trail names the job's credential.
      const started = await context.server.get(`/api/v1/organization/${organization}/job/${job}`);
      assert.equal(latest.attributes.createdBy, started.body.data.attributes.createdBy);
      assert.notEqual(latest.attributes.createdBy, `job:${job}`);
      const [change] = await context.server.query(
        `select actor_subject, actor_kind from record_change where record_type = 'history' and record_id = $1`,
        [latest.id],
      );
      assert.deepEqual(change, { actor_subject: `job:${job}`, actor_kind: 'stateCredential' });
      const other = await createWorkspace(context.server, organization, { globalRemoteState: false });
      assertError(await send('GET', `${base(other)}/state`, undefined, basic(credential)), 403);
      assert.equal((await context.server.get(`/api/v1/organization/${organization}`, { token: credential })).status, 401);
    });

    it("links a written state version at the server's own address, never at the host a writer's request names", async () => {
      const ws = await createWorkspace(context.server, organization);
      const text = stateText(1, 'hosted');
      const written = await rawRequest(context.server.url, {
        head: Buffer.concat([
          Buffer.from(
            requestHead('POST', `${base(ws)}/state`, {
              host: 'collector.example:80',
              authorization: adminBasic,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(text),
              connection: 'close',
            }),
          ),
          Buffer.from(text),
        ]),
        waitMs: 5000,
      });
      assert.equal(written.status, 200, written.text);
      const [record] = await historyOf(ws);
      assert.ok(record !== undefined);
      assert.equal(record.attributes.output, `${context.server.url}${base(ws)}/state/${record.id}.json`);
    });

    it("refuses a job's credential once its job has ended, and one minted for a job that is not its workspace's", async () => {
      const job = await runningJob(workspace);
      const credential = await mintStateCredential(context.server.signer, {
        organizationId: organization,
        workspaceId: workspace,
        jobReference: job,
      });
      assert.equal((await send('GET', `${base(workspace)}/state`, undefined, basic(credential))).status, 200);
      const cancelled = await context.server.patch(
        `/api/v1/organization/${organization}/job/${job}`,
        resourceDocument('job', { status: 'cancelled' }, { id: job }),
      );
      assert.equal(cancelled.status, 204, cancelled.text);
      // A copy of it (a run's log, a leaked environment) is of no use afterwards.
      const [refused] = assertError(await send('GET', `${base(workspace)}/state`, undefined, basic(credential)), 403);
      assert.match(refused?.detail ?? '', /job has ended/);
      assertError(await send('LOCK', `${base(workspace)}/lock`, lockInfo(), basic(credential)), 403);
      const elsewhere = await createWorkspace(context.server, organization);
      const foreignJob = await runningJob(elsewhere);
      const misnamed = await mintStateCredential(context.server.signer, {
        organizationId: organization,
        workspaceId: workspace,
        jobReference: foreignJob,
      });
      assertError(await send('GET', `${base(workspace)}/state`, undefined, basic(misnamed)), 403);
    });

    it("keeps a job's credential off a lock it did not take, even when it names the lock's ID", async () => {
      const credential = await mintStateCredential(context.server.signer, {
        organizationId: organization,
        workspaceId: workspace,
        jobReference: await runningJob(workspace),
      });
      // A person holds the lock; a refused lock shows its ID to whoever asks.
      const info = lockInfo();
      assert.equal((await send('LOCK', `${base(workspace)}/lock`, info)).status, 200);
      const refused = await send('LOCK', `${base(workspace)}/lock`, lockInfo(), basic(credential));
      assert.equal(refused.status, 423);
      assert.equal(JSON.parse(refused.text).ID, JSON.parse(info).ID);
      // Naming it neither releases the lock nor writes under it.
      assert.equal((await send('UNLOCK', `${base(workspace)}/lock`, info, basic(credential))).status, 409);
      assert.equal(
        (await send('POST', `${path()}?ID=${JSON.parse(info).ID as string}`, stateText(50, 'x'), basic(credential))).status,
        409,
      );
      // The person's lock is still held, and theirs to release.
      assert.equal((await send('LOCK', `${base(workspace)}/lock`, lockInfo())).status, 423);
      assert.equal((await send('UNLOCK', `${base(workspace)}/lock`, info)).status, 200);
    });

    it("lets a job's credential read the state of the workspaces that share theirs with it, and change none", async () => {
      const credential = await mintStateCredential(context.server.signer, {
        organizationId: organization,
        workspaceId: workspace,
        jobReference: await runningJob(workspace),
      });
      // globalRemoteState (on by default): every workspace of the organization reads it, as terraform_remote_state does.
      const open = await createWorkspace(context.server, organization);
      await writeFirstState(context.server, organization, open);
      const read = await send('GET', `${base(open)}/state`, undefined, basic(credential));
      assert.equal(read.status, 200, read.text);
      assert.equal(JSON.parse(read.text).serial, 1);
      assertError(await send('LOCK', `${base(open)}/lock`, lockInfo(), basic(credential)), 403);
      assertError(await send('POST', `${base(open)}/state`, stateText(9, 'y'), basic(credential)), 403);

      // Off, only the workspaces its sharedIds lists read it.
      const closed = await createWorkspace(context.server, organization, { globalRemoteState: false });
      await writeFirstState(context.server, organization, closed);
      assertError(await send('GET', `${base(closed)}/state`, undefined, basic(credential)), 403);
      const shared = await context.server.patch(
        `/api/v1/organization/${organization}/workspace/${closed}`,
        resourceDocument('workspace', { sharedIds: workspace }, { id: closed }),
      );
      assert.equal(shared.status, 204, shared.text);
      assert.equal((await send('GET', `${base(closed)}/state`, undefined, basic(credential))).status, 200);

      // Another organization's workspace is never shared.
      const elsewhere = await createOrganization(context.server);
      const foreign = await createWorkspace(context.server, elsewhere);
      assertError(await send('GET', `/tfstate/v1/organization/${elsewhere}/workspace/${foreign}/state`, undefined, basic(credential)), 403);
    });
  });

  describe(`Terraform (${binaryName}) against Stratum`, () => {
    it('runs init, plan and apply through the http backend, recording the state it writes', { timeout: 120_000 }, async () => {
      const workspace = await createWorkspace(context.server, organization);
      const project = terraformProject();
      try {
        const env = {
          TF_HTTP_ADDRESS: `${context.server.url}${base(workspace)}/state`,
          TF_HTTP_LOCK_ADDRESS: `${context.server.url}${base(workspace)}/lock`,
          TF_HTTP_UNLOCK_ADDRESS: `${context.server.url}${base(workspace)}/lock`,
          TF_HTTP_USERNAME: 'stratum',
          TF_HTTP_PASSWORD: context.server.adminToken,
          TF_VAR_name: 'alpha',
        };
        for (const args of [
          ['init', '-input=false', '-no-color'],
          ['plan', '-input=false', '-no-color', '-out=plan.bin'],
          ['apply', '-input=false', '-no-color', 'plan.bin'],
        ]) {
          const run = await runTerraform(project, args, env);
          assert.equal(run.code, 0, `${args[0] ?? ''}: ${run.stderr}`);
        }
        const records = await historyOf(workspace);
        assert.equal(records.length, 1, 'the apply wrote one state');
        const state = JSON.parse((await send('GET', `${base(workspace)}/state`)).text);
        assert.equal(records[0]?.attributes.serial, state.serial);
        assert.equal(records[0]?.attributes.lineage, state.lineage);
        assert.equal(state.outputs.greeting.value, 'hello alpha');
        assert.equal(state.resources[0].type, 'terraform_data');
        const held = await send('LOCK', `${base(workspace)}/lock`, lockInfo());
        assert.equal(held.status, 200, 'Terraform left no lock behind');
        const locked = await runTerraform(project, ['plan', '-input=false', '-no-color'], env);
        assert.notEqual(locked.code, 0);
        assert.match(locked.stderr, /already locked/);
        assert.equal((await send('DELETE', `${base(workspace)}/lock`)).status, 200);
      } finally {
        fs.rmSync(project, { recursive: true, force: true });
      }
    });
  });
});

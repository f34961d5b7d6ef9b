import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import {
  assertError,
  createOrganization,
  createRecord,
  createTemplate,
  createWorkspace,
  describeEachStore,
  resourceDocument,
  type RequestOptions,
} from './harness.ts';

interface JsonRecord {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: unknown }>;
}

const base64 = (text: string) => Buffer.from(text).toString('base64');

/** The body Terrakube's web UI sends from "Run now" (Jobs/Create.tsx), byte for byte in shape. */
const runNow = (workspace: string, template: string, extra: Record<string, unknown> = {}) => ({
  data: {
    type: 'job',
    attributes: { templateReference: template, overrideBranch: 'main', via: 'UI', ...extra },
    relationships: { workspace: { data: { type: 'workspace', id: workspace } } },
  },
});

describeEachStore('jobs and their steps', (context) => {
  let organization: string;
  let planAndApply: string;
  const org = (rest = '') => `/api/v1/organization/${organization}${rest}`;
  const jobPath = (id: string, rest = '') => org(`/job/${id}${rest}`);
  const templateNamed = async (organizationId: string, name: string) => {
    const response = await context.server.get(`/api/v1/organization/${organizationId}/template`);
    const found = (response.body.data as JsonRecord[]).find((record) => record.attributes.name === name);
    assert.ok(found, `no template ${name}`);
    return found.id;
  };
  const startJob = async (workspace: string, template = planAndApply, options: RequestOptions = {}, extra = {}) => {
    const response = await context.server.post(org('/job'), runNow(workspace, template, extra), options);
    assert.equal(response.status, 201, response.text);
    return response.body.data as JsonRecord;
  };
  const setStatus = (id: string, status: string, options: RequestOptions = {}) =>
    context.server.patch(jobPath(id), resourceDocument('job', { status }, { id }), options);
  /** What an executor will do: the job waits for an approval. */
  const awaitApproval = (id: string) => context.server.execute(`update job set status = 'waitingApproval' where id = $1`, [id]);

  before(async () => {
    organization = await createOrganization(context.server);
    planAndApply = await templateNamed(organization, 'Plan and apply');
  });

  it("creates a job as the web UI's Run now does: pending, numbered, with the template's steps", async () => {
    const workspace = await createWorkspace(context.server, organization);
    const created = await startJob(workspace, planAndApply, {}, { targetAddrs: ['terraform_data.a', 'module.m.terraform_data.b'] });
    assert.equal(created.type, 'job');
    assert.match(created.id, /^[1-9][0-9]*$/);
    assert.equal(created.attributes.status, 'pending');
    assert.equal(created.attributes.via, 'UI');
    assert.equal(created.attributes.overrideBranch, 'main');
    assert.equal(created.attributes.templateReference, planAndApply);
    assert.deepEqual(created.attributes.targetAddrs, ['terraform_data.a', 'module.m.terraform_data.b']);
    assert.equal(created.attributes.replaceAddrs, null);

    // The run detail page: the job with its steps and workspace.
    const read = await context.server.get(jobPath(created.id, '?include=step,workspace'));
    assert.equal(read.status, 200, read.text);
    const included = read.body.included as JsonRecord[];
    const steps = included.filter((record) => record.type === 'step').map((record) => record.attributes);
    assert.deepEqual(
      steps
        .map(({ stepNumber, name, status }) => ({ stepNumber, name, status }))
        .sort((a, b) => Number(a.stepNumber) - Number(b.stepNumber)),
      [
        { stepNumber: 100, name: 'Terraform Plan from Terraform CLI', status: 'pending' },
        { stepNumber: 200, name: 'Terraform Apply from Terraform CLI', status: 'pending' },
      ].map((step) => ({ ...step, name: steps.find((s) => s.stepNumber === step.stepNumber)?.name })),
    );
    assert.equal(steps.length, 2);
    assert.ok(included.some((record) => record.type === 'workspace' && record.id === workspace));

    // The workspace follows its newest job, and lists it where the web UI reads its runs.
    const page = await context.server.get(
      org(`/workspace/${workspace}?include=job,variable,history,schedule,vcs,agent,organization,webhook,reference,project`),
    );
    assert.equal(page.status, 200, page.text);
    const attributes = (page.body.data as JsonRecord).attributes;
    assert.equal(attributes.lastJobStatus, 'pending');
    assert.equal(typeof attributes.lastJobDate, 'string');
    assert.deepEqual((page.body.data as JsonRecord).relationships?.job?.data, [{ type: 'job', id: created.id }]);
    assert.ok((page.body.included as JsonRecord[]).some((record) => record.type === 'job' && record.id === created.id));
  });

  it('numbers jobs in the order they are made, across workspaces and organizations', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const other = await createOrganization(context.server);
    const otherWorkspace = await createWorkspace(context.server, other);
    const otherTemplate = await templateNamed(other, 'Plan');
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(Number((await startJob(workspace)).id));
      const response = await context.server.post(`/api/v1/organization/${other}/job`, runNow(otherWorkspace, otherTemplate));
      assert.equal(response.status, 201, response.text);
      ids.push(Number((response.body.data as JsonRecord).id));
    }
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    );
    assert.equal(new Set(ids).size, ids.length);
    const listed = await context.server.get(org(`/workspace/${workspace}/job`));
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      (listed.body.data as JsonRecord[]).map((record) => Number(record.id)),
      ids.filter((_, i) => i % 2 === 0),
    );
  });

  it('fails a job whose template cannot run, with the reason, before anything runs', async () => {
    const workspace = await createWorkspace(context.server, organization);
    // Saved as text that is no flow (a flow that could not run is refused when saved).
    const broken = await createTemplate(context.server, organization, {
      tcl: base64('steps:\n  - type: terraformPlan\n    step: 100\n'),
    });
    const created = await startJob(workspace, broken);
    assert.equal(created.attributes.status, 'failed');
    assert.match(String(created.attributes.comments), /unknown key "steps"/);
    // Nothing ran; the one step says why, where the web UI shows a run's failure: its log, read from its output link.
    const read = await context.server.get(jobPath(created.id, '?include=step'));
    const steps = (read.body.included ?? []) as JsonRecord[];
    assert.equal(steps.length, 1, read.text);
    const { stepNumber, name, status } = steps[0]?.attributes ?? {};
    assert.deepEqual({ stepNumber, name, status }, { stepNumber: 0, name: 'Read the template', status: 'failed' });
    const output = String(steps[0]?.attributes.output);
    assert.equal(output, `/tfoutput/v1/organization/${organization}/job/${created.id}/step/${steps[0]?.id}`);
    const log = await context.server.request('GET', output, { headers: { accept: 'text/plain' } });
    assert.equal(log.status, 200, log.text);
    assert.match(log.text, /^The job could not start: The template has an unknown key "steps"/);
    const page = await context.server.get(org(`/workspace/${workspace}`));
    assert.equal((page.body.data as JsonRecord).attributes.lastJobStatus, 'failed');
    // Not base64 at all.
    const garbage = await createTemplate(context.server, organization, { tcl: '%%%' });
    const failed = await startJob(workspace, garbage);
    assert.equal(failed.attributes.status, 'failed');
    assert.match(String(failed.attributes.comments), /base64/);
  });

  it('refuses a job without a workspace or template of the organization', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const other = await createOrganization(context.server);
    const otherWorkspace = await createWorkspace(context.server, other);
    const otherTemplate = await templateNamed(other, 'Plan');
    assertError(await context.server.post(org('/job'), runNow(otherWorkspace, planAndApply)), 404, '/data/relationships/workspace/data');
    assertError(await context.server.post(org('/job'), runNow(workspace, otherTemplate)), 422, '/data/attributes/templateReference');
    const { relationships: _relationships, ...withoutWorkspace } = runNow(workspace, planAndApply).data;
    assertError(await context.server.post(org('/job'), { data: withoutWorkspace }), 422, '/data/relationships/workspace');
    assertError(
      await context.server.post(org('/job'), runNow(workspace, planAndApply, { status: 'completed' })),
      422,
      '/data/attributes/status',
    );
    assertError(
      await context.server.post(org('/job'), runNow(workspace, planAndApply, { targetAddrs: 'a.b' })),
      422,
      '/data/attributes/targetAddrs',
    );
    const tooMany = Array.from({ length: 101 }, (_, i) => `terraform_data.r${i}`);
    assertError(
      await context.server.post(org('/job'), runNow(workspace, planAndApply, { replaceAddrs: tooMany })),
      422,
      '/data/attributes/replaceAddrs',
    );
  });

  it('answers 404 for ids that are not positive whole numbers', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const created = await startJob(workspace);
    for (const id of ['abc', '-1', '0', '1.5', `0${created.id}`, '1e3', '99999999999999999999', '9007199254740993', randomUUID(), '%20']) {
      const response = await context.server.get(jobPath(id));
      assert.equal(response.status, 404, `${id}: ${response.text}`);
      assert.equal((await context.server.get(jobPath(id, '/step'))).status, 404, id);
      assert.equal((await setStatus(id, 'cancelled')).status, 404, id);
    }
  });

  it('moves a job as a client may: approve, reject and cancel, from the statuses they start from', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const job = await startJob(workspace);
    assertError(await setStatus(job.id, 'approved'), 409, '/data/attributes/status');
    assertError(await setStatus(job.id, 'running'), 422, '/data/attributes/status');
    assertError(await context.server.patch(jobPath(job.id), resourceDocument('job', { overrideBranch: 'other' }, { id: job.id })), 422);
    // Sent back as read, unchanged: accepted.
    const {
      createdBy: _a,
      createdDate: _b,
      updatedBy: _c,
      updatedDate: _d,
      comments: _e,
      commitId: _f,
      planChanges: _g,
      output: _h,
      approvalTeam: _i,
      ...echo
    } = job.attributes;
    assert.equal((await context.server.patch(jobPath(job.id), resourceDocument('job', echo, { id: job.id }))).status, 204);

    await awaitApproval(job.id);
    assert.equal((await setStatus(job.id, 'approved')).status, 204);
    assert.equal((await context.server.get(jobPath(job.id))).body.data.attributes.status, 'approved');
    assert.equal((await context.server.get(org(`/workspace/${workspace}`))).body.data.attributes.lastJobStatus, 'approved');
    assertError(await setStatus(job.id, 'rejected'), 409);
    assert.equal((await setStatus(job.id, 'cancelled')).status, 204);
    assertError(await setStatus(job.id, 'pending'), 422);

    const second = await startJob(workspace);
    await awaitApproval(second.id);
    assert.equal((await setStatus(second.id, 'rejected')).status, 204);
    // Only the newest job sets the workspace's last status.
    assert.equal((await setStatus(job.id, 'cancelled')).status, 204);
    assert.equal((await context.server.get(org(`/workspace/${workspace}`))).body.data.attributes.lastJobStatus, 'rejected');
  });

  describe('who may start and move jobs', () => {
    let workspace: string;
    let projectWorkspace: string;
    let other: string;
    const team = (name: string, flags: Record<string, unknown>) =>
      createRecord(context.server, org('/team'), 'team', { name, role: 'custom', ...flags });
    const caller = async (group: string) => ({ token: await context.server.token({ groups: [group] }) });

    before(async () => {
      workspace = await createWorkspace(context.server, organization);
      projectWorkspace = await createWorkspace(context.server, organization);
      const project = await createRecord(context.server, org('/project'), 'project', { name: `p-${randomUUID()}` });
      const linked = await context.server.patch(org(`/workspace/${projectWorkspace}/relationships/project`), {
        data: { type: 'project', id: project },
      });
      assert.equal(linked.status, 204, linked.text);
      await team('planners', { planJob: true });
      await team('approvers', { approveJob: true });
      await team('readers', {});
      await createRecord(context.server, org(`/workspace/${workspace}/access`), 'access', {
        name: 'ws-approvers',
        approveJob: true,
        planJob: true,
      });
      await createRecord(context.server, org(`/project/${project}/projectAccess`), 'project_access', {
        name: 'project-planners',
        planJob: true,
      });
      other = await createOrganization(context.server);
      await createRecord(context.server, `/api/v1/organization/${other}/team`, 'team', { name: 'strangers', role: 'admin' });
    });

    it('lets teams with planJob start jobs, and refuses the others', async () => {
      await startJob(workspace, planAndApply, await caller('planners'));
      assertError(await context.server.post(org('/job'), runNow(workspace, planAndApply), await caller('approvers')), 403);
      assertError(await context.server.post(org('/job'), runNow(workspace, planAndApply), await caller('readers')), 403);
      // A grant on the workspace, and on the project of the workspace.
      await startJob(workspace, planAndApply, await caller('ws-approvers'));
      // A workspace the grant does not reach is one the caller cannot see: refused as any other.
      assertError(await context.server.post(org('/job'), runNow(projectWorkspace, planAndApply), await caller('ws-approvers')), 403);
      await startJob(projectWorkspace, planAndApply, await caller('project-planners'));
      assertError(await context.server.post(org('/job'), runNow(workspace, planAndApply), await caller('project-planners')), 403);
      // Another organization's team sees nothing here.
      assertError(await context.server.post(org('/job'), runNow(workspace, planAndApply), await caller('strangers')), 404);
    });

    it('lets approvers approve, planners cancel, and grants act on their own workspace', async () => {
      const job = await startJob(workspace);
      await awaitApproval(job.id);
      assertError(await setStatus(job.id, 'approved', await caller('planners')), 403);
      assertError(await setStatus(job.id, 'approved', await caller('readers')), 403);
      assertError(await setStatus(job.id, 'approved', await caller('strangers')), 404);
      assertError(await setStatus(job.id, 'approved', await caller('project-planners')), 404);
      assert.equal((await setStatus(job.id, 'approved', await caller('approvers'))).status, 204);
      assert.equal((await setStatus(job.id, 'cancelled', await caller('planners'))).status, 204);

      const granted = await startJob(workspace);
      await awaitApproval(granted.id);
      assert.equal((await setStatus(granted.id, 'rejected', await caller('ws-approvers'))).status, 204);

      const inProject = await startJob(projectWorkspace);
      await awaitApproval(inProject.id);
      assertError(await setStatus(inProject.id, 'approved', await caller('project-planners')), 403);
      assert.equal((await setStatus(inProject.id, 'cancelled', await caller('project-planners'))).status, 204);
    });

    it('shows jobs to whoever sees their workspace', async () => {
      const job = await startJob(projectWorkspace);
      assert.equal((await context.server.get(jobPath(job.id, '?include=step'), await caller('readers'))).status, 200);
      assert.equal((await context.server.get(jobPath(job.id), await caller('project-planners'))).status, 200);
      assert.equal((await context.server.get(jobPath(job.id), await caller('ws-approvers'))).status, 404);
      assert.equal((await context.server.get(jobPath(job.id), await caller('strangers'))).status, 404);
      const listed = await context.server.get(org('/job'), await caller('project-planners'));
      assert.equal(listed.status, 200, listed.text);
      const workspaces = new Set(
        (listed.body.data as JsonRecord[]).map((record) => (record.relationships?.workspace?.data as { id: string }).id),
      );
      assert.deepEqual([...workspaces], [projectWorkspace]);
    });
  });

  it('keeps steps to the server, and deletes jobs and steps with their workspace', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const job = await startJob(workspace);
    const steps = await context.server.get(jobPath(job.id, '/step'));
    assert.equal(steps.status, 200, steps.text);
    const [step] = steps.body.data as JsonRecord[];
    assert.ok(step);
    // No path writes a step; GraphQL, which has the write operations of every type, refuses them.
    assertError(await context.server.post(jobPath(job.id, '/step'), resourceDocument('step', {})), 405);
    assertError(await context.server.delete(jobPath(job.id, `/step/${step.id}`)), 405);
    const mutation = await context.server.post('/graphql/api/v1', {
      query: `mutation { job(ids: ["${job.id}"]) { edges { node { step(op: DELETE, ids: ["${step.id}"]) { edges { node { id } } } } } } }`,
    });
    assert.match(mutation.text, /made and changed by the server/);
    assert.equal((await context.server.delete(org(`/workspace/${workspace}`))).status, 204);
    assert.equal(await context.server.countRows('job', 'workspace_id', workspace), 0);
    assert.equal(await context.server.countRows('step', 'job_id', job.id), 0);
  });

  it('serves jobs through GraphQL and atomic operations too', async () => {
    const workspace = await createWorkspace(context.server, organization);
    const job = await startJob(workspace, planAndApply, {}, { replaceAddrs: ['terraform_data.x'] });
    const query = `{ organization(ids: ["${organization}"]) { edges { node { job(ids: ["${job.id}"]) { edges { node { id status replaceAddrs workspace { edges { node { id } } } step { edges { node { stepNumber status } } } } } } } } } }`;
    const read = await context.server.post('/graphql/api/v1', { query });
    assert.equal(read.status, 200, read.text);
    const node = read.body.data.organization.edges[0].node.job.edges[0].node;
    assert.equal(node.id, job.id);
    assert.deepEqual(node.replaceAddrs, ['terraform_data.x']);
    assert.equal(node.workspace.edges[0].node.id, workspace);
    assert.equal(node.step.edges.length, 2);

    const atomic = await context.server.post(
      '/api/v1/operations',
      {
        'atomic:operations': [
          {
            op: 'add',
            href: `/organization/${organization}/job`,
            data: {
              type: 'job',
              attributes: { templateReference: planAndApply },
              relationships: { workspace: { data: { type: 'workspace', id: workspace } } },
            },
          },
        ],
      },
      {
        headers: {
          'content-type': 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"',
          accept: 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"',
        },
      },
    );
    assert.equal(atomic.status, 200, atomic.text);
    const made = atomic.body['atomic:results'][0].data as JsonRecord;
    assert.ok(Number(made.id) > Number(job.id));
    assert.equal(made.attributes.status, 'pending');
  });
});

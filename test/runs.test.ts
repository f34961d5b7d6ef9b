/**
 * Jobs run end to end: the executor in the server takes a job, checks out the workspace's
 * repository from a git server on loopback, runs Terraform against Stratum's own state backend,
 * stores and streams the logs (redacted), waits for approvals, and ends the job. The binary is the
 * stand-in unless STRATUM_TEST_TERRAFORM names a real one (with STRATUM_TEST_TERRAFORM_CLI_CONFIG
 * naming a CLI configuration whose provider mirror holds hashicorp/null).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { GitServer } from './git-server.ts';
import {
  createOrganization,
  createRecord,
  createTemplate,
  createWorkspace,
  eventually,
  resourceDocument,
  storeKinds,
  TestServer,
} from './harness.ts';

const standIn = path.join(path.dirname(fileURLToPath(import.meta.url)), 'stand-in', 'terraform');
const binary = process.env.STRATUM_TEST_TERRAFORM ?? standIn;
const version = '0.13.7';
const secretValue = 'hunter2-top-secret-value';

const mainTf = (command: string) => `terraform {
  required_providers {
    null = {
      source  = "hashicorp/null"
      version = "3.1.0"
    }
  }
}

variable "name" {
  type = string
}

resource "null_resource" "greeting" {
  triggers = {
    name = var.name
  }

  provisioner "local-exec" {
    command = "${command}"
  }
}

output "greeting" {
  value = "hello-\${var.name}"
}
`;

const flow = (steps: string) => Buffer.from(`flow:\n${steps}`).toString('base64');
const planApproveApply = flow(
  '  - type: "terraformPlan"\n    name: "Plan"\n    step: 100\n  - type: "approval"\n    name: "Approve"\n    step: 150\n    team: "ops"\n  - type: "terraformApply"\n    name: "Apply"\n    step: 200\n',
);

interface JsonRecord {
  id: string;
  attributes: Record<string, unknown>;
}

for (const kind of storeKinds) {
  describe(`runs (${kind}, ${binary === standIn ? 'stand-in' : binary})`, () => {
    let git: GitServer;
    let server: TestServer;
    let organization: string;
    let template: string;
    let tools: string;
    const org = (rest = '') => `/api/v1/organization/${organization}${rest}`;

    before(async () => {
      git = await GitServer.start();
      tools = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-test-tools-'));
      fs.mkdirSync(path.join(tools, 'terraform', version), { recursive: true });
      fs.symlinkSync(binary, path.join(tools, 'terraform', version, 'terraform'));
      const cliConfig = process.env.STRATUM_TEST_TERRAFORM_CLI_CONFIG;
      server = await TestServer.start(kind, {
        STRATUM_EXECUTOR: 'on',
        STRATUM_TOOLS_DIR: tools,
        STRATUM_STEP_GRACE_SECONDS: '2',
        ...(cliConfig === undefined ? {} : { STRATUM_TERRAFORM_CLI_CONFIG: cliConfig }),
      });
      organization = await createOrganization(server);
      template = await createTemplate(server, organization, { name: 'Plan, approve, apply', tcl: planApproveApply });
    });
    after(async () => {
      await server.stop();
      await git.stop();
      fs.rmSync(tools, { recursive: true, force: true });
    });

    /** A workspace on a new repository whose apply runs `command`, with a sensitive variable that must never show. */
    const workspaceRunning = async (name: string, command: string) => {
      const source = git.repository(name, [{ files: { 'main.tf': mainTf(command) }, tags: [] }]);
      const workspace = await createWorkspace(server, organization, {
        source,
        branch: 'main',
        folder: '/',
        terraformVersion: version,
        iacType: 'terraform',
      });
      await createRecord(server, `/api/v1/organization/${organization}/workspace/${workspace}/variable`, 'variable', {
        key: 'name',
        value: 'alpha',
        category: 'TERRAFORM',
      });
      await createRecord(server, `/api/v1/organization/${organization}/workspace/${workspace}/variable`, 'variable', {
        key: 'SECRET_TOKEN',
        value: secretValue,
        category: 'ENV',
        sensitive: true,
      });
      return workspace;
    };
    const startJob = async (workspace: string, templateId = template) => {
      const response = await server.post(org('/job'), {
        data: {
          type: 'job',
          attributes: { templateReference: templateId, overrideBranch: 'main', via: 'UI' },
          relationships: { workspace: { data: { type: 'workspace', id: workspace } } },
        },
      });
      assert.equal(response.status, 201, response.text);
      return (response.body.data as JsonRecord).id;
    };
    const templateNamed = async (name: string) => {
      const response = await server.get(org('/template'));
      const found = (response.body.data as JsonRecord[]).find((record) => record.attributes.name === name);
      assert.ok(found, `no template ${name}`);
      return found.id;
    };
    const jobOf = async (id: string) => {
      const response = await server.get(org(`/job/${id}?include=step`));
      assert.equal(response.status, 200, response.text);
      const steps = ((response.body.included ?? []) as JsonRecord[]).sort(
        (a, b) => Number(a.attributes.stepNumber) - Number(b.attributes.stepNumber),
      );
      return { job: response.body.data as JsonRecord, steps };
    };
    /** What ended otherwise than expected, with its logs: said once, at the end of a failed wait. */
    const failures: string[] = [];
    const logOf = async (output: unknown) => {
      const url = new URL(String(output));
      const response = await server.get(url.pathname);
      assert.equal(response.status, 200, response.text);
      return response.text;
    };

    const statusOf = async (id: string, expected: string) =>
      eventually(
        `job ${id} is ${expected}`,
        async () => {
          const { job, steps } = await jobOf(id);
          const status = String(job.attributes.status);
          if (status !== expected && ['failed', 'completed', 'noChanges', 'cancelled'].includes(status)) {
            const logs = await Promise.all(steps.filter((step) => step.attributes.output).map((step) => logOf(step.attributes.output)));
            failures.push(`job ${id} is ${status}, not ${expected}: ${String(job.attributes.comments)}\n${logs.join('\n---\n')}`);
          }
          assert.equal(status, expected, String(job.attributes.comments));
          return { job, steps };
        },
        { timeoutMs: 90_000, intervalMs: 200 },
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${failures.slice(-1).join('')}`);
      });
    it('plans, waits for approval, applies on approval, and keeps the state, with every secret redacted', async () => {
      const workspace = await workspaceRunning('apply', `echo provisioned-with-$SECRET_TOKEN`);
      const id = await startJob(workspace);
      const waiting = await statusOf(id, 'waitingApproval');
      assert.equal(waiting.job.attributes.approvalTeam, 'ops');
      assert.match(String(waiting.job.attributes.commitId), /^[0-9a-f]{40}$/);
      assert.deepEqual(
        waiting.steps.map((step) => step.attributes.status),
        ['completed', 'waitingApproval', 'pending'],
      );
      const planLog = await logOf(waiting.steps[0]?.attributes.output);
      assert.match(planLog, /1 to add/);

      const approved = await server.patch(org(`/job/${id}`), resourceDocument('job', { status: 'approved' }, { id }));
      assert.equal(approved.status, 204, approved.text);
      const done = await statusOf(id, 'completed');
      assert.deepEqual(
        done.steps.map((step) => step.attributes.status),
        ['completed', 'completed', 'completed'],
      );
      const applyLog = await logOf(done.steps[2]?.attributes.output);
      assert.match(applyLog, /provisioned-with-\*\*\*/);
      assert.match(applyLog, /Apply complete/);
      assert.doesNotMatch(applyLog + planLog, new RegExp(secretValue));

      const state = await server.get(`/tfstate/v1/organization/${organization}/workspace/${workspace}/state/terraform.tfstate`);
      assert.equal(state.status, 200, state.text);
      assert.equal(state.body.outputs.greeting.value, 'hello-alpha');
      const lock = await server.query(`select count(*) as n from state_lock where workspace_id = $1`, [workspace]);
      assert.equal(Number(lock[0]?.n), 0);
      const workspaceRead = await server.get(org(`/workspace/${workspace}`));
      assert.equal(workspaceRead.body.data.attributes.lastJobStatus, 'completed');

      // A second run finds nothing to change.
      const again = await startJob(workspace);
      const unchanged = await statusOf(again, 'noChanges');
      assert.equal(unchanged.job.attributes.planChanges, false);
      assert.deepEqual(
        unchanged.steps.map((step) => step.attributes.status),
        ['completed', 'notExecuted', 'notExecuted'],
      );
    });

    it('runs one job of a workspace at a time: a second waits, pending, behind one waiting for its approval', async () => {
      const workspace = await workspaceRunning('queue', 'echo queued');
      const first = await startJob(workspace);
      await statusOf(first, 'waitingApproval');
      const second = await startJob(workspace);
      // The executor looks every 2 s and whenever a status changes: it has had its chance.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal((await jobOf(second)).job.attributes.status, 'pending');
      const approved = await server.patch(org(`/job/${first}`), resourceDocument('job', { status: 'approved' }, { id: first }));
      assert.equal(approved.status, 204, approved.text);
      await statusOf(first, 'completed');
      // The first applied what the second would: it finds nothing to change.
      await statusOf(second, 'noChanges');
    });

    it('serves a step log only to callers who see the job, and streams it while the step runs', async () => {
      const workspace = await workspaceRunning('stream', 'for i in 1 2 3 4 5 6 7 8 9 10; do echo line-$i; sleep 0.3; done');
      const planAndApply = await templateNamed('Plan and apply');
      const id = await startJob(workspace, planAndApply);
      const running = await eventually(
        'the apply step runs',
        async () => {
          const { steps } = await jobOf(id);
          assert.equal(steps[1]?.attributes.status, 'running');
          return steps[1];
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      const url = new URL(String(running.attributes.output));
      assert.match(url.pathname, new RegExp(`^/tfoutput/v1/organization/${organization}/job/${id}/step/[0-9a-f-]+$`));
      const stream = await fetch(`${server.url}${url.pathname}/stream`, { headers: { authorization: `Bearer ${server.adminToken}` } });
      assert.equal(stream.status, 200);
      assert.match(String(stream.headers.get('content-type')), /^text\/event-stream/);
      const events = await stream.text();
      assert.match(events, /data: .*line-10/);
      assert.match(events, /^id: \d+$/m);
      await statusOf(id, 'completed');

      const stranger = await server.token();
      assert.equal((await server.get(url.pathname, { token: stranger })).status, 404);
      assert.equal((await server.get(`${url.pathname}/stream`, { token: stranger })).status, 404);
      assert.equal((await server.get(url.pathname, { token: null })).status, 401);
      const context = await server.get(`/context/v1/${id}`);
      assert.equal(context.status, 200);
      assert.deepEqual(context.body, {});
      assert.equal((await server.get(`/context/v1/${id}`, { token: stranger })).status, 404);
    });

    it('cancels a running apply: the tool is interrupted, the lock released, and the workspace free again', async () => {
      const workspace = await workspaceRunning('cancel', 'sleep 30');
      const planAndApply = await templateNamed('Plan and apply');
      const id = await startJob(workspace, planAndApply);
      await eventually('the apply step runs', async () => assert.equal((await jobOf(id)).steps[1]?.attributes.status, 'running'), {
        timeoutMs: 60_000,
        intervalMs: 100,
      });
      const cancelled = await server.patch(org(`/job/${id}`), resourceDocument('job', { status: 'cancelled' }, { id }));
      assert.equal(cancelled.status, 204, cancelled.text);
      await eventually(
        'the apply step is cancelled',
        async () =>
          assert.deepEqual(
            (await jobOf(id)).steps.map((step) => step.attributes.status),
            ['completed', 'cancelled'],
          ),
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      assert.equal((await jobOf(id)).job.attributes.status, 'cancelled');
      await eventually('the state lock is released', async () => {
        const lock = await server.query(`select count(*) as n from state_lock where workspace_id = $1`, [workspace]);
        assert.equal(Number(lock[0]?.n), 0);
      });
      const plan = await templateNamed('Plan');
      const next = await startJob(workspace, plan);
      await statusOf(next, 'completed');
    });

    it('starts a run when a schedule fires, once, and never for times before the schedule was made', async () => {
      const workspace = await workspaceRunning('schedule', 'echo scheduled');
      const plan = await templateNamed('Plan');
      // A time a few seconds ahead, in UTC, with its year: the schedule fires there and never again.
      const at = new Date(Date.now() + 4000);
      const cron = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} ? ${at.getUTCFullYear()}`;
      const created = await server.post(org(`/workspace/${workspace}/schedule`), {
        data: { type: 'schedule', attributes: { cron, templateReference: plan } },
      });
      assert.equal(created.status, 201, created.text);
      // A schedule whose only time has passed never fires.
      const past = await server.post(org(`/workspace/${workspace}/schedule`), {
        data: { type: 'schedule', attributes: { cron: '0 0 0 1 1 ? 2020', templateReference: plan } },
      });
      assert.equal(past.status, 201, past.text);
      const jobs = await eventually(
        'the schedule made a job',
        async () => {
          const response = await server.get(org(`/workspace/${workspace}/job`));
          const list = response.body.data as JsonRecord[];
          assert.equal(list.length, 1, response.text);
          return list;
        },
        { timeoutMs: 30_000, intervalMs: 250 },
      );
      assert.equal(jobs[0]?.attributes.via, 'Schedule');
      await statusOf(jobs[0].id, 'completed');
      const schedule = await server.get(org(`/workspace/${workspace}/schedule/${String(created.body.data.id)}`));
      assert.equal(schedule.body.data.attributes.firing, true);
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal(((await server.get(org(`/workspace/${workspace}/job`))).body.data as JsonRecord[]).length, 1);
    });
  });
}

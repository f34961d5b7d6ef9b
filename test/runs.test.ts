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
  });
}

/**
 * What the suites about runs share: a server with the executor on and a Terraform binary in its
 * tools folder under the binary's own version (the one test/terraform-binary.ts chooses: a real
 * Terraform, or the stand-in), repositories served by a git server on loopback, and the calls a
 * user makes to run jobs and watch them. The configurations use Terraform's built-in
 * terraform_data, so that no provider needs downloading.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GitServer } from './git-server.ts';
import { createOrganization, createRecord, createWorkspace, eventually, TestServer, type StoreKind } from './harness.ts';
import { binary, binaryName, isStandIn, standIn, terraformVersion } from './terraform-binary.ts';

export { binary, binaryName, terraformVersion };
/** A sensitive variable's value every workspace has: no log or answer may show it. */
export const secretValue = 'hunter2-top-secret-value';

/** A configuration with one terraform_data resource whose creation runs `command`, and an output of it. */
export const mainTf = (command: string) => `variable "name" {
  type = string
}

resource "terraform_data" "greeting" {
  input = var.name

  triggers_replace = {
    name = var.name
  }

  provisioner "local-exec" {
    command = "${command}"
  }
}

output "greeting" {
  value = "hello-\${terraform_data.greeting.output}"
}
`;

/** A workspace variable as the API takes it. */
export interface WorkspaceVariable {
  key: string;
  value: string;
  category: 'TERRAFORM' | 'ENV';
  sensitive?: boolean;
  hcl?: boolean;
}

export interface JsonRecord {
  id: string;
  attributes: Record<string, unknown>;
}

const finished = ['failed', 'completed', 'noChanges', 'cancelled', 'rejected'];

/** A server that runs jobs, on a store of its own or a stopped one's, with an organization to run them in. */
export class RunBench {
  organization = '';
  /** What ended otherwise than a wait expected, with its logs: said at the end of the failed wait. */
  private readonly failures: string[] = [];

  private constructor(
    readonly server: TestServer,
    readonly git: GitServer,
    readonly tools: string,
  ) {}

  /** `from`: a stopped bench whose store, repositories and organization the new server takes over. */
  static async start(kind: StoreKind, { from, env = {} }: { from?: RunBench; env?: Record<string, string> } = {}): Promise<RunBench> {
    const git = from?.git ?? (await GitServer.start());
    const tools = from?.tools ?? fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-test-tools-'));
    if (from === undefined) {
      fs.mkdirSync(path.join(tools, 'terraform', terraformVersion), { recursive: true });
      fs.symlinkSync(binary, path.join(tools, 'terraform', terraformVersion, 'terraform'));
    }
    const cliConfig = process.env.STRATUM_TEST_TERRAFORM_CLI_CONFIG;
    const server = await TestServer.start(kind, {
      STRATUM_EXECUTOR: 'on',
      STRATUM_TOOLS_DIR: tools,
      STRATUM_STEP_GRACE_SECONDS: '2',
      // The stand-in is a script run by Node with the repository's packages: its steps read them.
      ...(isStandIn ? { STRATUM_RUN_READ_ONLY: path.resolve(path.dirname(standIn), '..', '..') } : {}),
      ...(cliConfig === undefined ? {} : { STRATUM_TERRAFORM_CLI_CONFIG: cliConfig }),
      ...env,
    });
    const bench = new RunBench(server, git, tools);
    bench.organization = from?.organization ?? (await createOrganization(server));
    return bench;
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.git.stop();
    fs.rmSync(this.tools, { recursive: true, force: true });
  }

  org(rest = ''): string {
    return `/api/v1/organization/${this.organization}${rest}`;
  }

  /** A workspace on a new repository whose apply runs `command`, with a Terraform variable and a sensitive ENV variable. */
  async workspaceRunning(name: string, command: string): Promise<string> {
    return this.workspaceOf(name, { 'main.tf': mainTf(command) }, [
      { key: 'name', value: 'alpha', category: 'TERRAFORM' },
      { key: 'SECRET_TOKEN', value: secretValue, category: 'ENV', sensitive: true },
    ]);
  }

  /** A workspace on a new repository holding `files` at the top of its main branch, with `variables`. */
  async workspaceOf(name: string, files: Record<string, string>, variables: WorkspaceVariable[] = []): Promise<string> {
    const source = this.git.repository(name, [{ files, tags: [] }]);
    const workspace = await createWorkspace(this.server, this.organization, {
      source,
      branch: 'main',
      folder: '/',
      terraformVersion,
      iacType: 'terraform',
    });
    for (const variable of variables)
      await createRecord(this.server, this.org(`/workspace/${workspace}/variable`), 'variable', { ...variable });
    return workspace;
  }

  /** A job as "Run now" sends it. */
  async startJob(workspace: string, templateId: string): Promise<string> {
    const response = await this.server.post(this.org('/job'), {
      data: {
        type: 'job',
        attributes: { templateReference: templateId, overrideBranch: 'main', via: 'UI' },
        relationships: { workspace: { data: { type: 'workspace', id: workspace } } },
      },
    });
    assert.equal(response.status, 201, response.text);
    return (response.body.data as JsonRecord).id;
  }

  async templateNamed(name: string): Promise<string> {
    const response = await this.server.get(this.org('/template'));
    const found = (response.body.data as JsonRecord[]).find((record) => record.attributes.name === name);
    assert.ok(found, `no template ${name}`);
    return found.id;
  }

  /** The job with its steps, by step number. */
  async jobOf(id: string): Promise<{ job: JsonRecord; steps: JsonRecord[] }> {
    const response = await this.server.get(this.org(`/job/${id}?include=step`));
    assert.equal(response.status, 200, response.text);
    const steps = ((response.body.included ?? []) as JsonRecord[]).sort(
      (a, b) => Number(a.attributes.stepNumber) - Number(b.attributes.stepNumber),
    );
    return { job: response.body.data as JsonRecord, steps };
  }

  /** A step's log, read at its `output` link as the web UI reads it. */
  async logOf(output: unknown): Promise<string> {
    const response = await this.server.get(new URL(String(output)).pathname);
    assert.equal(response.status, 200, response.text);
    return response.text;
  }

  /** Waits for the job to have `expected` status; one that ended otherwise fails with its logs. */
  async statusOf(id: string, expected: string): Promise<{ job: JsonRecord; steps: JsonRecord[] }> {
    return eventually(
      `job ${id} is ${expected}`,
      async () => {
        const { job, steps } = await this.jobOf(id);
        const status = String(job.attributes.status);
        if (status !== expected && finished.includes(status)) {
          const logs = await Promise.all(steps.filter((step) => step.attributes.output).map((step) => this.logOf(step.attributes.output)));
          this.failures.push(`job ${id} is ${status}, not ${expected}: ${String(job.attributes.comments)}\n${logs.join('\n---\n')}`);
        }
        assert.equal(status, expected, String(job.attributes.comments));
        return { job, steps };
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${this.failures.slice(-1).join('')}`);
    });
  }

  /** Waits until the job's step at `index` (by step number) runs. */
  async stepRuns(id: string, index: number): Promise<JsonRecord> {
    return eventually(
      `step ${index} of job ${id} runs`,
      async () => {
        const step = (await this.jobOf(id)).steps[index];
        assert.equal(step?.attributes.status, 'running');
        return step;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
  }

  async stateLocks(workspace: string): Promise<number> {
    const rows = await this.server.query(`select count(*) as n from state_lock where workspace_id = $1`, [workspace]);
    return Number(rows[0]?.n);
  }
}

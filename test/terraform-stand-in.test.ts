/**
 * The Terraform CLI contract Stratum relies on, held against the binary test/terraform-binary.ts
 * chooses: a real Terraform (STRATUM_TEST_TERRAFORM, or `terraform` on PATH) or the stand-in, which
 * models Terraform 1.11. Exit codes, the requests to the http state backend, the state and plan
 * documents byte for byte where Terraform fixes them, interrupts and a backend refusing the final
 * state. Every assertion holds for both, but for one suite of the stand-in's refusals.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StateBackendRecorder, terraformEnvironment } from './state-backend-recorder.ts';
import { binary, binaryName, isStandIn, terraformVersion } from './terraform-binary.ts';

const scratch = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'terraform-stand-in-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));
const generous = { timeout: 120_000 };
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const provider = 'provider["terraform.io/builtin/terraform"]';

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A working directory with its own recorder and the controlled environment an executor passes. */
class Workspace {
  readonly directory: string;
  readonly recorder = new StateBackendRecorder('stratum', 'p4ss-w0rd');
  env: Record<string, string> = {};
  private readonly groups: number[] = [];

  constructor(name: string, files: Record<string, string>) {
    this.directory = path.join(scratch, name);
    fs.mkdirSync(this.directory);
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(this.directory, file), text);
  }

  async start(): Promise<void> {
    const url = await this.recorder.start();
    this.env = terraformEnvironment(this.directory, url, this.recorder);
  }

  /** Stops the recorder and whatever a run left in its process group (a provisioner's orphans). */
  async stop(): Promise<void> {
    for (const group of this.groups) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    }
    await this.recorder.stop();
  }

  /** Starts the binary in its own process group, as an executor does to interrupt it like a terminal would. */
  spawn(args: string[], env: Record<string, string | undefined> = {}) {
    const merged = Object.fromEntries(
      Object.entries({ ...this.env, ...env }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    const child = spawn(binary, args, { cwd: this.directory, env: merged, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) this.groups.push(child.pid);
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
    const done = new Promise<Run>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, ...output })));
    /** Resolves once the output holds `text`; fails if the binary ends first. */
    const printed = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (output.stdout.includes(text)) resolve();
          else if (child.exitCode !== null) reject(new Error(`exited early: ${output.stdout}${output.stderr}`));
          else setTimeout(check, 50);
        };
        check();
      });
    return { child, output, done, printed };
  }

  run(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
    return this.spawn(args, env).done;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a state document of any shape, as the binary wrote it
  storedState(): any {
    assert.ok(this.recorder.state !== undefined, 'a state was uploaded');
    return JSON.parse(this.recorder.state);
  }

  /** The state documents uploaded since a request index, in order. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- state documents of any shape, as the binary wrote them
  uploadsSince(since: number): any[] {
    return this.recorder.requests
      .slice(since)
      .filter((request) => request.method === 'POST')
      .map((request) => JSON.parse(request.body));
  }
}

const mainTf = `terraform {
  backend "http" {}
}

variable "name" {
  type = string
}

variable "word" {
  type    = string
  default = "hello"
}

variable "tags" {
  type    = map(string)
  default = {}
}

resource "terraform_data" "greeting" {
  input = "\${var.word}-\${var.name}"

  triggers_replace = {
    name = var.name
  }

  provisioner "local-exec" {
    command = "echo provisioned-\${var.name}; echo to-stderr >&2"
  }
}

output "greeting_id" {
  value = terraform_data.greeting.id
}

output "greeting" {
  value = terraform_data.greeting.output
}

output "secret" {
  value     = "s3cret-\${var.name}"
  sensitive = true
}

output "tags" {
  value = var.tags
}
`;

const lockInfoFields = ['ID', 'Operation', 'Info', 'Who', 'Version', 'Created', 'Path'];

/** Nothing left locked and every body carried a Content-MD5 that matched it and the right Basic auth. */
function assertWellFormed(workspace: Workspace, since: number): void {
  assert.equal(workspace.recorder.lock, undefined, 'the lock is released');
  for (const request of workspace.recorder.requests.slice(since)) {
    assert.equal(request.status < 400 || request.status === 423, true, `${request.method} ${request.path} answered ${request.status}`);
    if (request.method !== 'GET') assert.equal(request.md5Valid, true, `${request.method} carries a valid Content-MD5`);
  }
}

/** A terraform_data instance as the state holds it: dynamically typed attributes as {value, type}. */
function dataInstance(id: string, input: unknown, inputType: unknown, triggers: unknown = null, more: Record<string, unknown> = {}) {
  const typed = input === null ? null : { value: input, type: inputType };
  return {
    ...(more.status === undefined ? {} : { status: more.status }),
    schema_version: 0,
    attributes: { id, input: typed, output: typed, triggers_replace: triggers },
    sensitive_attributes: [],
    ...(more.dependencies === undefined ? {} : { dependencies: more.dependencies }),
  };
}

describe(`the Terraform CLI contract (${binaryName})`, () => {
  const workspace = new Workspace('main', { 'main.tf': mainTf });
  const variables = { TF_VAR_name: 'alpha', TF_VAR_tags: '{ team = "blue", tier = "web" }' };
  let greetingId = '';

  before(() => workspace.start());
  after(() => workspace.stop());

  it('reports its version, and the stand-in says it is one', async () => {
    const run = await workspace.run(['version']);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^Terraform v\d+\.\d+\.\d+/);
    const json = await workspace.run(['version', '-json']);
    assert.equal(JSON.parse(json.stdout).terraform_version, terraformVersion);
    assert.equal(/standin/.test(run.stdout), isStandIn);
  });

  it('initializes the http backend configured through TF_HTTP_* alone', generous, async () => {
    const run = await workspace.run(['init', '-input=false', '-no-color']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Terraform has been successfully initialized!/);
    assert.match(run.stdout, /terraform\.io\/builtin\/terraform is built in/);
    assert.ok(fs.existsSync(path.join(workspace.directory, '.terraform')));
    const written = fs.readdirSync(path.join(workspace.directory, '.terraform'), { recursive: true, withFileTypes: true });
    for (const file of written.filter((entry) => entry.isFile())) {
      const text = fs.readFileSync(path.join(file.parentPath, file.name), 'utf8');
      assert.doesNotMatch(text, /p4ss-w0rd/, `${file.name} holds no credential`);
    }
  });

  it('plans changes with exit code 2, locking, reading and unlocking the state', generous, async () => {
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['plan', '-input=false', '-no-color', '-detailed-exitcode', '-out=plan.bin'], variables);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stdout, /Plan: 1 to add, 0 to change, 0 to destroy\./);
    assert.deepEqual(workspace.recorder.methodsSince(since), ['LOCK', 'GET', 'UNLOCK']);
    const [lock, , unlock] = workspace.recorder.requests.slice(since);
    const info = JSON.parse(lock?.body ?? '');
    assert.deepEqual(Object.keys(info), lockInfoFields);
    assert.equal(info.Operation, 'OperationTypePlan');
    assert.equal(info.Version, terraformVersion);
    assert.match(info.ID, uuid);
    assert.equal(unlock?.body, lock?.body, 'UNLOCK carries the same lock info');
    assertWellFormed(workspace, since);
  });

  it('shows the saved plan as JSON, reading no state', generous, async () => {
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['show', '-json', 'plan.bin']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(workspace.recorder.methodsSince(since), []);
    const shown = JSON.parse(run.stdout);
    assert.equal(shown.format_version, '1.2');
    assert.equal(shown.terraform_version, terraformVersion);
    assert.deepEqual(shown.variables, {
      name: { value: 'alpha' },
      tags: { value: { team: 'blue', tier: 'web' } },
      word: { value: 'hello' },
    });
    assert.deepEqual(shown.resource_changes, [
      {
        address: 'terraform_data.greeting',
        mode: 'managed',
        type: 'terraform_data',
        name: 'greeting',
        provider_name: 'terraform.io/builtin/terraform',
        change: {
          actions: ['create'],
          before: null,
          after: { input: 'hello-alpha', triggers_replace: { name: 'alpha' } },
          after_unknown: { id: true, output: true, triggers_replace: {} },
          before_sensitive: false,
          after_sensitive: { triggers_replace: {} },
        },
      },
    ]);
    assert.deepEqual(shown.output_changes.secret, {
      actions: ['create'],
      before: null,
      after: 's3cret-alpha',
      after_unknown: false,
      before_sensitive: true,
      after_sensitive: true,
    });
    assert.deepEqual(shown.output_changes.greeting, {
      actions: ['create'],
      before: null,
      after_unknown: true,
      before_sensitive: false,
      after_sensitive: false,
    });
    assert.deepEqual(shown.relevant_attributes, [
      { resource: 'terraform_data.greeting', attribute: ['id'] },
      { resource: 'terraform_data.greeting', attribute: ['output'] },
    ]);
    assert.deepEqual(shown.configuration.root_module.resources[0].expressions, {
      input: { references: ['var.word', 'var.name'] },
      triggers_replace: { references: ['var.name'] },
    });
    assert.equal(shown.applyable, true);
  });

  it('applies the saved plan: provisioner output, then the state uploaded under the lock id', generous, async () => {
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['apply', '-input=false', '-no-color', 'plan.bin']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /provisioned-alpha/);
    assert.match(run.stdout, /to-stderr/);
    assert.match(run.stdout, /Apply complete! Resources: 1 added, 0 changed, 0 destroyed\./);
    assert.match(run.stdout, /secret = <sensitive>/);
    assert.match(run.stdout, /greeting = "hello-alpha"/);
    assert.doesNotMatch(run.stdout, /s3cret-alpha/);
    // With no state yet, Terraform looks for one once more before writing the first.
    assert.deepEqual(workspace.recorder.methodsSince(since), ['LOCK', 'GET', 'GET', 'POST', 'UNLOCK']);
    const requests = workspace.recorder.requests.slice(since);
    const lockInfo = JSON.parse(requests[0]?.body ?? '');
    assert.equal(lockInfo.Operation, 'OperationTypeApply');
    assert.equal(requests[3]?.query.get('ID'), lockInfo.ID);
    assertWellFormed(workspace, since);

    const state = workspace.storedState();
    assert.equal(workspace.recorder.state, `${JSON.stringify(state, null, 2)}\n`, 'written as Terraform writes it');
    greetingId = state.resources[0]?.instances[0]?.attributes.id;
    assert.match(greetingId, uuid);
    assert.match(state.lineage, uuid);
    assert.deepEqual(state, {
      version: 4,
      terraform_version: terraformVersion,
      serial: 1,
      lineage: state.lineage,
      outputs: {
        greeting: { value: 'hello-alpha', type: 'string' },
        greeting_id: { value: greetingId, type: 'string' },
        secret: { value: 's3cret-alpha', type: 'string', sensitive: true },
        tags: { value: { team: 'blue', tier: 'web' }, type: ['map', 'string'] },
      },
      resources: [
        {
          mode: 'managed',
          type: 'terraform_data',
          name: 'greeting',
          provider,
          instances: [
            dataInstance(greetingId, 'hello-alpha', 'string', { value: { name: 'alpha' }, type: ['object', { name: 'string' }] }),
          ],
        },
      ],
      check_results: null,
    });
  });

  it('plans no changes with exit code 0 once applied', generous, async () => {
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['plan', '-input=false', '-no-color', '-detailed-exitcode'], variables);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /No changes\./);
    assert.match(run.stdout, new RegExp(`terraform_data\\.greeting: Refreshing state\\.\\.\\. \\[id=${greetingId}\\]`));
    assert.deepEqual(workspace.recorder.methodsSince(since), ['LOCK', 'GET', 'UNLOCK']);
    assertWellFormed(workspace, since);
  });

  it('prints outputs and the state in clear text, sensitive ones included, reading once each without a lock', generous, async () => {
    const since = workspace.recorder.requests.length;
    const outputs = await workspace.run(['output', '-json']);
    assert.equal(outputs.code, 0, outputs.stderr);
    assert.deepEqual(JSON.parse(outputs.stdout), {
      greeting: { sensitive: false, type: 'string', value: 'hello-alpha' },
      greeting_id: { sensitive: false, type: 'string', value: greetingId },
      secret: { sensitive: true, type: 'string', value: 's3cret-alpha' },
      tags: { sensitive: false, type: ['map', 'string'], value: { team: 'blue', tier: 'web' } },
    });
    const pulled = await workspace.run(['state', 'pull']);
    assert.equal(pulled.code, 0, pulled.stderr);
    assert.equal(pulled.stdout, `${workspace.recorder.state ?? ''}\n`);
    const shown = await workspace.run(['show', '-json']);
    assert.equal(shown.code, 0, shown.stderr);
    const document = JSON.parse(shown.stdout);
    assert.equal(document.format_version, '1.0');
    assert.deepEqual(document.values.outputs.secret, { sensitive: true, value: 's3cret-alpha', type: 'string' });
    assert.deepEqual(document.values.root_module.resources, [
      {
        address: 'terraform_data.greeting',
        mode: 'managed',
        type: 'terraform_data',
        name: 'greeting',
        provider_name: 'terraform.io/builtin/terraform',
        schema_version: 0,
        values: { id: greetingId, input: 'hello-alpha', output: 'hello-alpha', triggers_replace: { name: 'alpha' } },
        sensitive_values: { triggers_replace: {} },
      },
    ]);
    assert.deepEqual(workspace.recorder.methodsSince(since), ['GET', 'GET', 'GET'], 'reading takes no lock');
  });

  it('fails like Terraform when a required variable has no value, releasing the lock', generous, async () => {
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['plan', '-input=false', '-no-color'], { TF_VAR_name: undefined });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /No value for required variable/);
    assert.deepEqual(workspace.recorder.methodsSince(since), ['LOCK', 'GET', 'UNLOCK']);
    assertWellFormed(workspace, since);
  });

  it('updates in place when only the input changes: the same id, the output following the input', generous, async () => {
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['apply', '-input=false', '-no-color', '-auto-approve'], { ...variables, TF_VAR_word: 'hi' });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /~ update in-place/);
    assert.match(run.stdout, /terraform_data\.greeting: Modifying\.\.\. \[id=/);
    assert.match(run.stdout, /Apply complete! Resources: 0 added, 1 changed, 0 destroyed\./);
    assert.doesNotMatch(run.stdout, /provisioned-alpha/, 'provisioners run on creation only');
    assert.deepEqual(workspace.recorder.methodsSince(since), ['LOCK', 'GET', 'POST', 'UNLOCK']);
    const state = workspace.storedState();
    assert.equal(state.serial, 2);
    assert.equal(state.resources[0].instances[0].attributes.id, greetingId);
    assert.deepEqual(state.resources[0].instances[0].attributes.output, { value: 'hi-alpha', type: 'string' });
    assert.deepEqual(state.outputs.greeting, { value: 'hi-alpha', type: 'string' });
  });

  it('refuses a plan made before the state changed, and a -var that differs from the saved one', generous, async () => {
    const stale = await workspace.run(['plan', '-input=false', '-no-color', '-detailed-exitcode', '-out=stale.bin'], {
      ...variables,
      TF_VAR_name: 'beta',
    });
    assert.equal(stale.code, 2, stale.stderr);
    assert.match(stale.stdout, /Plan: 1 to add, 0 to change, 1 to destroy\./);
    const shown = JSON.parse((await workspace.run(['show', '-json', 'stale.bin'])).stdout);
    const change = shown.resource_changes[0];
    assert.deepEqual([change.change.actions, change.action_reason], [['delete', 'create'], 'replace_because_cannot_update']);
    assert.deepEqual(change.change.replace_paths, [['triggers_replace']]);

    const changed = workspace.recorder.requests.length;
    const varied = await workspace.run(['apply', '-input=false', '-no-color', '-var', 'name=other', 'stale.bin']);
    assert.equal(varied.code, 1);
    assert.match(varied.stderr, /Can't change variable when applying a saved plan/);
    assert.deepEqual(workspace.recorder.methodsSince(changed), ['LOCK', 'GET', 'UNLOCK']);

    const moving = workspace.recorder.requests.length;
    const moved = await workspace.run(['apply', '-input=false', '-no-color', '-auto-approve'], { ...variables, TF_VAR_name: 'gamma' });
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(moved.stdout, /Apply complete! Resources: 1 added, 0 changed, 1 destroyed\./);
    assert.deepEqual(
      workspace.recorder.methodsSince(moving),
      ['LOCK', 'GET', 'POST', 'UNLOCK'],
      'a state read under the lock is updated without a second look',
    );
    assert.equal(workspace.storedState().serial, 3);
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['apply', '-input=false', '-no-color', 'stale.bin']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Saved plan is stale/);
    assert.deepEqual(workspace.recorder.methodsSince(since), ['LOCK', 'GET', 'UNLOCK']);
    assert.equal(workspace.storedState().serial, 3);
    assert.deepEqual(workspace.storedState().resources[0].instances[0].attributes.triggers_replace.value, { name: 'gamma' });
    assertWellFormed(workspace, since);
  });

  it('stops with exit code 1 when another holder has the lock', generous, async () => {
    const holder = JSON.stringify({
      ID: 'f0c9e5d2-held-elsewhere',
      Operation: 'OperationTypeApply',
      Info: '',
      Who: 'someone@elsewhere',
      Version: '1.5.7',
      Created: new Date().toISOString(),
      Path: '',
    });
    workspace.recorder.lock = holder;
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['plan', '-input=false', '-no-color'], variables);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Error acquiring the state lock/);
    assert.match(run.stderr, /already locked: ID=f0c9e5d2-held-elsewhere/);
    assert.deepEqual(workspace.recorder.methodsSince(since), ['LOCK'], 'no state read without the lock');
    assert.equal(workspace.recorder.lock, holder, 'the holder keeps its lock');
    workspace.recorder.lock = undefined;
  });

  it('refuses to work without the backend credentials', generous, async () => {
    const serial = workspace.storedState().serial;
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['apply', '-input=false', '-no-color', '-auto-approve'], {
      ...variables,
      TF_VAR_name: 'delta',
      TF_HTTP_PASSWORD: undefined,
      TF_HTTP_USERNAME: undefined,
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /requires auth/);
    assert.deepEqual(workspace.recorder.methodsSince(since), ['LOCK']);
    assert.equal(workspace.recorder.requests.at(-1)?.status, 401);
    assert.equal(workspace.storedState().serial, serial);
  });

  it('destroys everything it created, its outputs too, and keeps the lineage', generous, async () => {
    const before = workspace.storedState();
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['destroy', '-input=false', '-no-color', '-auto-approve'], variables);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Destroy complete! Resources: 1 destroyed\./);
    assert.deepEqual(workspace.recorder.methodsSince(since), ['LOCK', 'GET', 'POST', 'UNLOCK']);
    const state = workspace.storedState();
    assert.deepEqual([state.resources, state.outputs], [[], {}]);
    assert.equal(state.lineage, before.lineage);
    assert.equal(state.serial, Number(before.serial) + 1);
    const post = workspace.recorder.requests.slice(since).find((request) => request.method === 'POST');
    assert.equal(post?.query.get('ID'), JSON.parse(workspace.recorder.requests[since]?.body ?? '').ID);
    assertWellFormed(workspace, since);
  });
});

describe(`an interrupted apply (${binaryName})`, () => {
  const slowTf = (command: string) => `terraform {
  backend "http" {}
}

resource "terraform_data" "first" {}

resource "terraform_data" "slow" {
  depends_on = [terraform_data.first]

  provisioner "local-exec" {
    command = "${command}"
  }
}
`;

  /** Applies in `workspace` and sends `signals` once the slow provisioner runs. */
  async function interrupted(workspace: Workspace, signals: { signal: NodeJS.Signals; group: boolean }[]) {
    assert.equal((await workspace.run(['init', '-input=false', '-no-color'])).code, 0);
    const since = workspace.recorder.requests.length;
    const started = workspace.spawn(['apply', '-input=false', '-no-color', '-auto-approve']);
    await started.printed('waiting-for-42');
    assert.equal(workspace.recorder.lock !== undefined, true, 'the lock is held while applying');
    const signalled = Date.now();
    for (const { signal, group } of signals) process.kill(group ? -(started.child.pid ?? 0) : (started.child.pid ?? 0), signal);
    const run = await started.done;
    return { run, since, stoppedWithinMs: Date.now() - signalled };
  }

  /** The instances of the stored state by resource name. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- state documents of any shape, as the binary wrote them
  const instancesOf = (state: any) =>
    Object.fromEntries(state.resources.map((resource: { name: string; instances: unknown[] }) => [resource.name, resource.instances[0]]));

  it(
    'stops on SIGINT to its process group: persists what it has at once, then what it ended with, tainted, and releases the lock',
    generous,
    async () => {
      const workspace = new Workspace('interrupted', { 'main.tf': slowTf("echo waiting-for-$((6 * 7)); trap '' INT; sleep 60") });
      await workspace.start();
      try {
        const { run, since } = await interrupted(workspace, [{ signal: 'SIGINT', group: true }]);
        assert.notEqual(run.code, 0);
        assert.match(run.stdout, /Interrupt received/);
        assert.match(run.stdout, /Stopping operation\.\.\./);
        assert.match(run.stderr, /execution halted/);
        assert.deepEqual(workspace.recorder.methodsSince(since), ['LOCK', 'GET', 'GET', 'POST', 'POST', 'UNLOCK']);
        assertWellFormed(workspace, since);
        const [early, last] = workspace.uploadsSince(since);
        assert.deepEqual(Object.keys(instancesOf(early)), ['first'], 'the state persisted as the stop began holds what had finished');
        assert.deepEqual([early.serial, last.serial], [1, 2]);
        const instances = instancesOf(last);
        assert.deepEqual(Object.keys(instances).sort(), ['first', 'slow']);
        assert.equal(instances.first.status, undefined);
        assert.equal(instances.slow.status, 'tainted', 'a resource whose provisioner was interrupted is tainted');
        assert.deepEqual(instances.slow.dependencies, ['terraform_data.first']);
      } finally {
        await workspace.stop();
      }
    },
  );

  it('stops on SIGTERM to its process alone, killing a provisioner that ignores signals', generous, async () => {
    const workspace = new Workspace('terminated', { 'main.tf': slowTf("echo waiting-for-$((6 * 7)); trap '' INT TERM; sleep 60") });
    await workspace.start();
    try {
      const { run, since, stoppedWithinMs } = await interrupted(workspace, [{ signal: 'SIGTERM', group: false }]);
      assert.ok(stoppedWithinMs < 30_000, 'the provisioner did not run its course');
      assert.notEqual(run.code, 0);
      assert.match(run.stdout, /Interrupt received/);
      assert.match(run.stderr, /signal: killed/);
      assertWellFormed(workspace, since);
      assert.equal(instancesOf(workspace.storedState()).slow.status, 'tainted');
    } finally {
      await workspace.stop();
    }
  });

  it('cancels on a second interrupt while it stops, still unlocking', generous, async () => {
    const workspace = new Workspace('cancelled', { 'main.tf': slowTf("echo waiting-for-$((6 * 7)); trap '' INT; sleep 60") });
    await workspace.start();
    try {
      assert.equal((await workspace.run(['init', '-input=false', '-no-color'])).code, 0);
      // A slow backend keeps Terraform persisting the state as it stops: the second interrupt finds it there.
      workspace.recorder.uploadDelayMs = 3000;
      const since = workspace.recorder.requests.length;
      const started = workspace.spawn(['apply', '-input=false', '-no-color', '-auto-approve']);
      await started.printed('waiting-for-42');
      process.kill(-(started.child.pid ?? 0), 'SIGINT');
      await started.printed('Stopping operation...');
      process.kill(-(started.child.pid ?? 0), 'SIGINT');
      const run = await started.done;
      assert.equal(run.code, 1);
      assert.match(run.stderr, /Two interrupts received/);
      assert.match(run.stderr, /operation canceled/);
      assert.doesNotMatch(run.stderr, /execution halted/, 'cancelled, it reports no result');
      assert.equal(workspace.recorder.methodsSince(since).at(-1), 'UNLOCK');
      assertWellFormed(workspace, since);
    } finally {
      await workspace.stop();
    }
  });
});

describe(`a backend that refuses the final state (${binaryName})`, () => {
  const files = {
    'main.tf': `terraform {
  backend "http" {}
}

resource "terraform_data" "first" {
  input = "kept"
}

resource "terraform_data" "slow" {
  depends_on = [terraform_data.first]

  provisioner "local-exec" {
    command = "echo waiting-for-$((6 * 7)); trap '' INT; sleep 60"
  }
}
`,
  };

  it('writes errored.tfstate in its working directory, says so, fails and releases the lock', generous, async () => {
    const workspace = new Workspace('refused', { 'main.tf': files['main.tf'].replace('sleep 60', 'true') });
    await workspace.start();
    try {
      assert.equal((await workspace.run(['init', '-input=false', '-no-color'])).code, 0);
      workspace.recorder.refuseUploads = 413;
      const since = workspace.recorder.requests.length;
      const run = await workspace.run(['apply', '-input=false', '-no-color', '-auto-approve']);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /Failed to save state/);
      assert.match(run.stderr, /HTTP error: 413/);
      assert.match(run.stderr, /errored\.tfstate/);
      assert.doesNotMatch(run.stdout, /Apply complete/);
      assert.deepEqual(workspace.recorder.methodsSince(since), ['LOCK', 'GET', 'GET', 'POST', 'UNLOCK']);
      assert.equal(workspace.recorder.state, undefined);
      assert.equal(workspace.recorder.lock, undefined);
      const text = fs.readFileSync(path.join(workspace.directory, 'errored.tfstate'), 'utf8');
      const errored = JSON.parse(text);
      assert.equal(text, `${JSON.stringify(errored, null, 2)}\n`);
      assert.deepEqual([errored.version, errored.serial, errored.terraform_version], [4, 1, terraformVersion]);
      assert.match(errored.lineage, uuid);
      assert.deepEqual(
        errored.resources.map((resource: { name: string }) => resource.name),
        ['first', 'slow'],
      );
      assert.equal(workspace.recorder.requests.at(-2)?.body, text, 'the file holds what the backend refused');
    } finally {
      await workspace.stop();
    }
  });

  it('says when the state it persists on an interrupt is refused too, and still writes errored.tfstate', generous, async () => {
    const workspace = new Workspace('refused-interrupted', files);
    await workspace.start();
    try {
      assert.equal((await workspace.run(['init', '-input=false', '-no-color'])).code, 0);
      workspace.recorder.refuseUploads = 403;
      const started = workspace.spawn(['apply', '-input=false', '-no-color', '-auto-approve']);
      await started.printed('waiting-for-42');
      process.kill(-(started.child.pid ?? 0), 'SIGINT');
      const run = await started.done;
      assert.equal(run.code, 1);
      assert.match(run.stderr, /Error saving current state/);
      assert.match(run.stderr, /errored\.tfstate/);
      assert.equal(workspace.recorder.lock, undefined);
      const errored = JSON.parse(fs.readFileSync(path.join(workspace.directory, 'errored.tfstate'), 'utf8'));
      const slow = errored.resources.find((resource: { name: string }) => resource.name === 'slow');
      assert.equal(slow?.instances[0].status, 'tainted');
    } finally {
      await workspace.stop();
    }
  });
});

describe(`values Terraform marks sensitive (${binaryName})`, () => {
  const workspace = new Workspace('sensitive', {
    'main.tf': `terraform {
  backend "http" {}
}

variable "token" {
  type      = string
  sensitive = true
}

resource "terraform_data" "token" {
  input            = var.token
  triggers_replace = ["fixed"]
}

output "copied" {
  value = terraform_data.token.output
}
`,
  });

  before(() => workspace.start());
  after(() => workspace.stop());

  it('marks an input made of a sensitive variable, and not the output terraform_data copies from it', generous, async () => {
    assert.equal((await workspace.run(['init', '-input=false', '-no-color'])).code, 0);
    const planned = await workspace.run(['plan', '-input=false', '-no-color', '-out=first.bin'], { TF_VAR_token: 'first-t0ken' });
    assert.equal(planned.code, 0, planned.stderr);
    assert.match(planned.stdout, /\+ input += \(sensitive value\)/);
    assert.doesNotMatch(planned.stdout, /first-t0ken/);
    const first = JSON.parse((await workspace.run(['show', '-json', 'first.bin'])).stdout);
    assert.deepEqual(first.resource_changes[0].change.after_sensitive, { input: true, triggers_replace: [false] });
    assert.deepEqual(first.configuration.root_module.variables, { token: { sensitive: true } });
    const applied = await workspace.run(['apply', '-input=false', '-no-color', 'first.bin']);
    assert.equal(applied.code, 0, applied.stderr);
    const instance = workspace.storedState().resources[0].instances[0];
    assert.deepEqual(instance.sensitive_attributes, [[{ type: 'get_attr', value: 'input' }]]);
    assert.deepEqual(workspace.storedState().outputs.copied, { value: 'first-t0ken', type: 'string' }, 'the output is not sensitive');

    const again = await workspace.run(['plan', '-input=false', '-no-color', '-out=second.bin'], { TF_VAR_token: 'second-t0ken' });
    assert.equal(again.code, 0, again.stderr);
    const second = JSON.parse((await workspace.run(['show', '-json', 'second.bin'])).stdout);
    const change = second.resource_changes[0].change;
    assert.deepEqual(change.actions, ['update']);
    assert.equal(change.before.output, 'first-t0ken');
    assert.deepEqual(change.before_sensitive, { input: true, triggers_replace: [false] }, 'the copy in output is left unmarked');
    assert.deepEqual(change.after_sensitive, { input: true, triggers_replace: [false] });
  });

  it('refuses an output that shows a sensitive value without saying so', generous, async () => {
    fs.appendFileSync(path.join(workspace.directory, 'main.tf'), '\noutput "input" {\n  value = terraform_data.token.input\n}\n');
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['plan', '-input=false', '-no-color'], { TF_VAR_token: 'first-t0ken' });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Output refers to sensitive values/);
    assert.deepEqual(workspace.recorder.methodsSince(since), ['LOCK', 'GET', 'UNLOCK']);
  });
});

describe(`variables from every source, and a backend block from an override file (${binaryName})`, () => {
  const workspace = new Workspace('variables', {
    'main.tf': `variable "word" {}

variable "size" {
  type = number
}

variable "labels" {
  type = map(string)
}

resource "terraform_data" "only" {
  triggers_replace = {
    word = var.word
    size = var.size
  }
}

output "word" {
  value = "\${var.word}!"
}

output "size" {
  value = var.size
}

output "labels" {
  value = var.labels
}
`,
    'backend_override.tf': 'terraform {\n  backend "http" {}\n}\n',
    'terraform.tfvars': 'labels = {\n  tier = "web"\n}\nword = "from-tfvars"\n',
    'sizes.auto.tfvars.json': '{ "size": 3 }\n',
  });

  before(() => workspace.start());
  after(() => workspace.stop());

  it('initializes with the backend block of an override file', generous, async () => {
    const run = await workspace.run(['init', '-input=false', '-no-color']);
    assert.equal(run.code, 0, run.stderr);
  });

  it('refuses a -var for a variable the configuration does not declare, releasing the lock', generous, async () => {
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['plan', '-input=false', '-no-color', '-var', 'colour=red']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /undeclared variable/);
    assert.equal(workspace.recorder.lock, undefined);
    assert.equal(workspace.recorder.methodsSince(since).includes('POST'), false);
  });

  it('refuses a value that is not of the declared type', generous, async () => {
    const run = await workspace.run(['plan', '-input=false', '-no-color', '-var', 'size=large']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Invalid value for input variable/);
    assert.equal(workspace.recorder.lock, undefined);
  });

  it('reads tfvars files, TF_VAR_* and -var, the command line winning', generous, async () => {
    const run = await workspace.run(['apply', '-input=false', '-no-color', '-auto-approve', '-var', 'word=from-flag'], {
      TF_VAR_word: 'from-env',
      TF_VAR_size: '7',
    });
    assert.equal(run.code, 0, run.stderr);
    const state = workspace.storedState();
    assert.deepEqual(state.outputs.word, { value: 'from-flag!', type: 'string' });
    assert.deepEqual(state.outputs.size, { value: 3, type: 'number' }, 'an auto.tfvars file wins over TF_VAR_*');
    assert.deepEqual(state.outputs.labels, { value: { tier: 'web' }, type: ['map', 'string'] });
    assert.deepEqual(state.resources[0].instances[0].attributes.triggers_replace, {
      value: { size: 3, word: 'from-flag' },
      type: ['object', { size: 'number', word: 'string' }],
    });
  });

  it('reads the state without locking it when told -lock=false', generous, async () => {
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['plan', '-input=false', '-no-color', '-lock=false', '-detailed-exitcode', '-var', 'word=from-flag']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(workspace.recorder.methodsSince(since), ['GET']);
  });

  it('plans a destroy that a saved plan then carries out, outputs and all', generous, async () => {
    const planned = await workspace.run([
      'plan',
      '-input=false',
      '-no-color',
      '-destroy',
      '-detailed-exitcode',
      '-out=destroy.bin',
      '-var',
      'word=from-flag',
    ]);
    assert.equal(planned.code, 2, planned.stderr);
    assert.match(planned.stdout, /Plan: 0 to add, 0 to change, 1 to destroy\./);
    const shown = JSON.parse((await workspace.run(['show', '-json', 'destroy.bin'])).stdout);
    assert.deepEqual(shown.resource_changes[0].change.actions, ['delete']);
    assert.equal(shown.resource_changes[0].change.after, null);
    assert.deepEqual(shown.output_changes.word.actions, ['delete']);
    const applied = await workspace.run(['apply', '-input=false', '-no-color', 'destroy.bin']);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /Apply complete! Resources: 0 added, 0 changed, 1 destroyed\./);
    assert.deepEqual([workspace.storedState().resources, workspace.storedState().outputs], [[], {}]);
  });
});

describe('what the stand-in does not model fails naming it', { skip: !isStandIn && 'a real binary models everything' }, () => {
  const cases: [string, string, RegExp][] = [
    ['a local value', 'locals {\n  a = 1\n}\n', /"locals" blocks/],
    ['another resource type', 'resource "random_id" "r" {\n  byte_length = 4\n}\n', /resource type "random_id"/],
    ['count', 'resource "terraform_data" "n" {\n  count = 2\n}\n', /"count" in resource "terraform_data" "n"/],
    ['a function call', 'output "o" {\n  value = upper("a")\n}\n', /the expression upper\("a"\)/],
    ['a required provider', 'terraform {\n  required_providers {\n  }\n}\n', /terraform \{ required_providers \}/],
  ];
  for (const [name, text, message] of cases) {
    it(`refuses ${name} with exit code 1 before touching the state`, generous, async () => {
      const workspace = new Workspace(`refused-${name.replace(/\W+/g, '-')}`, {
        'main.tf': `terraform {\n  backend "http" {}\n}\n\n${text}`,
      });
      await workspace.start();
      try {
        const init = await workspace.run(['init', '-input=false', '-no-color']);
        const run = init.code === 0 ? await workspace.run(['plan', '-input=false', '-no-color']) : init;
        assert.equal(run.code, 1);
        assert.match(run.stderr, /does not model/);
        assert.match(run.stderr, message);
        assert.equal(workspace.recorder.lock, undefined);
      } finally {
        await workspace.stop();
      }
    });
  }
});

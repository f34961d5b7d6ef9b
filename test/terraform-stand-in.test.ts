/**
 * The Terraform stand-in behaves like Terraform on what Stratum relies on: exit codes, the
 * requests to the http state backend, the state it writes and the JSON it prints. Every
 * assertion here holds for a real binary too: STRATUM_TEST_TERRAFORM=/path/to/terraform runs the
 * same file against it (with STRATUM_TEST_TERRAFORM_CLI_CONFIG naming a CLI configuration that
 * finds the null provider offline).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { StateBackendRecorder, terraformEnvironment } from './state-backend-recorder.ts';

const standIn = path.join(path.dirname(fileURLToPath(import.meta.url)), 'stand-in', 'terraform');
const binary = process.env.STRATUM_TEST_TERRAFORM ?? standIn;
const scratch = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'terraform-stand-in-'));
const generous = { timeout: 120_000 };

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

  constructor(name: string, files: Record<string, string>) {
    this.directory = path.join(scratch, name);
    fs.mkdirSync(this.directory);
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(this.directory, file), text);
  }

  async start(): Promise<void> {
    const url = await this.recorder.start();
    this.env = terraformEnvironment(this.directory, url, this.recorder);
  }

  /** Starts the binary in its own process group, as an executor does to interrupt it like a terminal would. */
  spawn(args: string[], env: Record<string, string | undefined> = {}) {
    const merged = Object.fromEntries(
      Object.entries({ ...this.env, ...env }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    const child = spawn(binary, args, { cwd: this.directory, env: merged, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
    const done = new Promise<Run>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, ...output })));
    return { child, output, done };
  }

  run(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
    return this.spawn(args, env).done;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a state document of any shape, as the binary wrote it
  storedState(): any {
    assert.ok(this.recorder.state !== undefined, 'a state was uploaded');
    return JSON.parse(this.recorder.state);
  }
}

const mainTf = `terraform {
  backend "http" {}
}

variable "name" {
  type = string
}

variable "tags" {
  type    = map(string)
  default = {}
}

resource "null_resource" "greeting" {
  triggers = {
    name = var.name
  }

  provisioner "local-exec" {
    command = "echo provisioned-\${var.name}; echo to-stderr >&2"
  }
}

output "greeting_id" {
  value = null_resource.greeting.id
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

describe(`the Terraform CLI contract (${binary === standIn ? 'stand-in' : binary})`, () => {
  const workspace = new Workspace('main', { 'main.tf': mainTf });
  const variables = { TF_VAR_name: 'alpha', TF_VAR_tags: '{ team = "blue", tier = "web" }' };
  let planId = '';
  let firstSerial = 0;

  before(() => workspace.start());
  after(() => workspace.recorder.stop());

  it('reports its version, and the stand-in says it is one', async () => {
    const run = await workspace.run(['version']);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^Terraform v\d+\.\d+\.\d+/);
    if (binary === standIn) assert.match(run.stdout, /standin/);
  });

  it('initializes the http backend configured through TF_HTTP_* alone', generous, async () => {
    const run = await workspace.run(['init', '-input=false', '-no-color']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Terraform has been successfully initialized!/);
    assert.ok(fs.existsSync(path.join(workspace.directory, '.terraform')));
    const written = fs.readdirSync(path.join(workspace.directory, '.terraform'), { recursive: true, withFileTypes: true });
    for (const file of written.filter((entry) => entry.isFile() && !entry.name.startsWith('terraform-provider'))) {
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
    assert.equal(unlock?.body, lock?.body, 'UNLOCK carries the same lock info');
    assertWellFormed(workspace, since);
  });

  it('shows the saved plan as JSON', generous, async () => {
    const run = await workspace.run(['show', '-json', 'plan.bin']);
    assert.equal(run.code, 0, run.stderr);
    const shown = JSON.parse(run.stdout);
    assert.equal(typeof shown.format_version, 'string');
    const change = shown.resource_changes.find((c: { address: string }) => c.address === 'null_resource.greeting');
    assert.deepEqual(change.change.actions, ['create']);
    assert.equal(change.change.before, null);
    assert.deepEqual(change.change.after.triggers, { name: 'alpha' });
    assert.deepEqual(shown.output_changes.secret.actions, ['create']);
  });

  it('applies the saved plan: provisioner output, then the state uploaded under the lock id', generous, async () => {
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['apply', '-input=false', '-no-color', 'plan.bin']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /provisioned-alpha/);
    assert.match(run.stdout, /to-stderr/);
    assert.match(run.stdout, /Apply complete! Resources: 1 added, 0 changed, 0 destroyed\./);
    assert.match(run.stdout, /secret = <sensitive>/);
    assert.doesNotMatch(run.stdout, /s3cret-alpha/);
    // With no state yet, Terraform looks for one once more before writing the first.
    assert.deepEqual(workspace.recorder.methodsSince(since), ['LOCK', 'GET', 'GET', 'POST', 'UNLOCK']);
    const requests = workspace.recorder.requests.slice(since);
    const lockInfo = JSON.parse(requests[0]?.body ?? '');
    assert.equal(lockInfo.Operation, 'OperationTypeApply');
    assert.equal(requests[3]?.query.get('ID'), lockInfo.ID);
    assertWellFormed(workspace, since);

    const state = workspace.storedState();
    assert.equal(state.version, 4);
    // The first snapshot's serial: 0 with Terraform 0.13, 1 with Terraform 1.x and OpenTofu.
    assert.ok(state.serial === 0 || state.serial === 1, `first serial ${state.serial}`);
    firstSerial = state.serial;
    assert.match(state.lineage, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(typeof state.terraform_version, 'string');
    assert.equal(state.resources.length, 1);
    const [resource] = state.resources;
    assert.equal(resource.mode, 'managed');
    assert.equal(resource.type, 'null_resource');
    assert.equal(resource.name, 'greeting');
    assert.equal(resource.provider, 'provider["registry.terraform.io/hashicorp/null"]');
    const attributes = resource.instances[0].attributes;
    assert.match(attributes.id, /^\d+$/);
    assert.deepEqual(attributes.triggers, { name: 'alpha' });
    assert.deepEqual(state.outputs.greeting_id, { value: attributes.id, type: 'string' });
    assert.deepEqual(state.outputs.secret, { value: 's3cret-alpha', type: 'string', sensitive: true });
    assert.deepEqual(state.outputs.tags, { value: { team: 'blue', tier: 'web' }, type: ['map', 'string'] });
    planId = attributes.id;
  });

  it('plans no changes with exit code 0 once applied', generous, async () => {
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['plan', '-input=false', '-no-color', '-detailed-exitcode'], variables);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /No changes\./);
    assert.deepEqual(workspace.recorder.methodsSince(since), ['LOCK', 'GET', 'UNLOCK']);
    assertWellFormed(workspace, since);
  });

  it('prints outputs and the state in clear text, sensitive ones included', generous, async () => {
    const since = workspace.recorder.requests.length;
    const outputs = await workspace.run(['output', '-json']);
    assert.equal(outputs.code, 0, outputs.stderr);
    assert.deepEqual(JSON.parse(outputs.stdout), {
      greeting_id: { sensitive: false, type: 'string', value: planId },
      secret: { sensitive: true, type: 'string', value: 's3cret-alpha' },
      tags: { sensitive: false, type: ['map', 'string'], value: { team: 'blue', tier: 'web' } },
    });
    const pulled = await workspace.run(['state', 'pull']);
    assert.equal(pulled.code, 0, pulled.stderr);
    const state = JSON.parse(pulled.stdout);
    assert.equal(state.serial, firstSerial);
    assert.equal(state.lineage, workspace.storedState().lineage);
    assert.equal(state.outputs.secret.value, 's3cret-alpha');
    const shown = await workspace.run(['show', '-json']);
    assert.equal(shown.code, 0, shown.stderr);
    const values = JSON.parse(shown.stdout).values;
    assert.equal(values.outputs.secret.value, 's3cret-alpha');
    assert.equal(values.outputs.secret.sensitive, true);
    assert.equal(values.root_module.resources[0].values.id, planId);
    assert.deepEqual([...new Set(workspace.recorder.methodsSince(since))], ['GET'], 'reading takes no lock');
  });

  it('fails like Terraform when a required variable has no value, releasing the lock', generous, async () => {
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['plan', '-input=false', '-no-color'], { TF_VAR_name: undefined });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /No value for required variable/);
    assert.deepEqual(workspace.recorder.methodsSince(since), ['LOCK', 'GET', 'UNLOCK']);
    assertWellFormed(workspace, since);
  });

  it('refuses a plan made before the state changed', generous, async () => {
    const stale = await workspace.run(['plan', '-input=false', '-no-color', '-detailed-exitcode', '-out=stale.bin'], {
      ...variables,
      TF_VAR_name: 'beta',
    });
    assert.equal(stale.code, 2, stale.stderr);
    assert.match(stale.stdout, /Plan: 1 to add, 0 to change, 1 to destroy\./);
    const moving = workspace.recorder.requests.length;
    const moved = await workspace.run(['apply', '-input=false', '-no-color', '-auto-approve'], { ...variables, TF_VAR_name: 'gamma' });
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(moved.stdout, /Apply complete! Resources: 1 added, 0 changed, 1 destroyed\./);
    assert.deepEqual(
      workspace.recorder.methodsSince(moving),
      ['LOCK', 'GET', 'POST', 'UNLOCK'],
      'a state read under the lock is updated without a second look',
    );
    assert.equal(workspace.storedState().serial, firstSerial + 1);
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['apply', '-input=false', '-no-color', 'stale.bin']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Saved plan is stale/);
    assert.equal(workspace.recorder.methodsSince(since).includes('POST'), false);
    assert.equal(workspace.recorder.methodsSince(since).at(-1), 'UNLOCK');
    assert.equal(workspace.storedState().serial, firstSerial + 1);
    assert.deepEqual(workspace.storedState().resources[0].instances[0].attributes.triggers, { name: 'gamma' });
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
    assert.match(run.stderr, /already locked/);
    assert.match(run.stderr, /f0c9e5d2-held-elsewhere/);
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

  it('destroys everything it created and keeps the lineage', generous, async () => {
    const before = workspace.storedState();
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['destroy', '-input=false', '-no-color', '-auto-approve'], variables);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Destroy complete! Resources: 1 destroyed\./);
    const state = workspace.storedState();
    assert.deepEqual(state.resources, []);
    assert.equal(state.lineage, before.lineage);
    assert.equal(state.serial, Number(before.serial) + 1);
    const post = workspace.recorder.requests.slice(since).find((request) => request.method === 'POST');
    assert.equal(post?.query.get('ID'), JSON.parse(workspace.recorder.requests[since]?.body ?? '').ID);
    assertWellFormed(workspace, since);
  });
});

describe(`an interrupted apply (${binary === standIn ? 'stand-in' : binary})`, () => {
  const workspace = new Workspace('interrupted', {
    'main.tf': `terraform {
  backend "http" {}
}

resource "null_resource" "first" {}

resource "null_resource" "slow" {
  depends_on = [null_resource.first]

  provisioner "local-exec" {
    command = "echo waiting-for-$((6 * 7)); sleep 60"
  }
}
`,
  });

  before(() => workspace.start());
  after(() => workspace.recorder.stop());

  it(
    'stops on SIGINT to its process group, keeps what it created (the interrupted one tainted) and releases the lock',
    generous,
    async () => {
      assert.equal((await workspace.run(['init', '-input=false', '-no-color'])).code, 0);
      const since = workspace.recorder.requests.length;
      const started = workspace.spawn(['apply', '-input=false', '-no-color', '-auto-approve']);
      await new Promise<void>((resolve, reject) => {
        const check = () => {
          if (started.output.stdout.includes('waiting-for-42')) resolve();
          else if (started.child.exitCode !== null) reject(new Error(`exited early: ${started.output.stderr}`));
          else setTimeout(check, 50);
        };
        check();
      });
      assert.equal(workspace.recorder.lock !== undefined, true, 'the lock is held while applying');
      process.kill(-(started.child.pid ?? 0), 'SIGINT');
      const run = await started.done;
      assert.notEqual(run.code, 0);
      assert.match(run.stdout, /Interrupt received/);
      assert.equal(workspace.recorder.lock, undefined, 'the lock is released');
      assert.equal(workspace.recorder.methodsSince(since).at(-1), 'UNLOCK');
      assertWellFormed(workspace, since);
      const state = workspace.storedState();
      const instances = Object.fromEntries(
        state.resources.map((resource: { name: string; instances: unknown[] }) => [resource.name, resource.instances[0]]),
      );
      assert.deepEqual(Object.keys(instances).sort(), ['first', 'slow']);
      assert.equal(instances.first.status, undefined);
      assert.equal(instances.slow.status, 'tainted', 'a resource whose provisioner was interrupted is tainted');
    },
  );
});

after(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe(`variables from every source, and a backend block from an override file (${binary === standIn ? 'stand-in' : binary})`, () => {
  const workspace = new Workspace('variables', {
    'main.tf': `variable "word" {}

variable "size" {
  type = number
}

variable "labels" {
  type = map(string)
}

resource "null_resource" "only" {
  triggers = {
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
  after(() => workspace.recorder.stop());

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
    assert.deepEqual(state.resources[0].instances[0].attributes.triggers, { word: 'from-flag', size: '3' });
  });

  it('reads the state without locking it when told -lock=false', generous, async () => {
    const since = workspace.recorder.requests.length;
    const run = await workspace.run(['plan', '-input=false', '-no-color', '-lock=false', '-detailed-exitcode', '-var', 'word=from-flag']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(workspace.recorder.methodsSince(since), ['GET']);
  });

  it('plans a destroy that a saved plan then carries out', generous, async () => {
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
    const applied = await workspace.run(['apply', '-input=false', '-no-color', 'destroy.bin']);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /Apply complete! Resources: 0 added, 0 changed, 1 destroyed\./);
    assert.deepEqual(workspace.storedState().resources, []);
  });
});

describe('what the stand-in does not model fails naming it', { skip: binary !== standIn && 'a real binary models everything' }, () => {
  const cases: [string, string, RegExp][] = [
    ['a local value', 'locals {\n  a = 1\n}\n', /"locals" blocks/],
    ['another resource type', 'resource "random_id" "r" {\n  byte_length = 4\n}\n', /resource type "random_id"/],
    ['count', 'resource "null_resource" "n" {\n  count = 2\n}\n', /"count" in resource "null_resource" "n"/],
    ['a function call', 'output "o" {\n  value = upper("a")\n}\n', /the expression upper\("a"\)/],
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
        await workspace.recorder.stop();
      }
    });
  }
});

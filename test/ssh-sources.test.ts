/**
 * Repositories reached over SSH with an organization's SSH key, through OpenSSH's own server on
 * loopback: a job checks out its workspace's source with the workspace's key, and a module's
 * versions are read with the module's. A key the server does not take fails with the reason, and
 * no key is left on disk or shown in a log.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { createRecord, storeKinds } from './harness.ts';
import { binaryName, RunBench } from './run-fixtures.ts';
import { SshServer, sshKeyPair, sshServerMissing } from './ssh-server.ts';

const missing = sshServerMissing();
// Skipped on a developer's machine without sshd (apt-get install openssh-server); CI installs it.
if (missing !== undefined && process.env.CI !== undefined) throw new Error(`${missing}: CI installs it`);
const accepted = sshKeyPair();
const refused = sshKeyPair();
/** Fails when the text holds the start of a private key's base64 body: what would show if a key leaked. */
function assertNoKey(text: string, { privateKey }: { privateKey: string }): void {
  const fragment = (privateKey.split('\n')[1] ?? privateKey).slice(0, 40);
  assert.ok(!text.includes(fragment), 'a private key shows');
}

for (const kind of storeKinds) {
  describe(`sources reached over SSH (${kind}, ${binaryName})`, { skip: missing }, () => {
    let bench: RunBench;
    let ssh: SshServer;
    const keys: Record<string, string> = {};
    before(async () => {
      bench = await RunBench.start(kind);
      ssh = await SshServer.start([accepted.publicKey]);
      for (const [name, pair] of Object.entries({ accepted, refused }))
        keys[name] = await createRecord(bench.server, bench.org('/ssh'), 'ssh', { name, privateKey: pair.privateKey, sshType: 'ed25519' });
    });
    after(async () => {
      await ssh.stop();
      await bench.stop();
    });

    /** A workspace whose source is its repository's SSH address, with the SSH key `key`. */
    async function workspaceOverSsh(name: string, key: string): Promise<{ workspace: string; url: string }> {
      const workspace = await bench.workspaceRunning(name, 'echo applied');
      const url = ssh.url(bench.git.path(name));
      const moved = await bench.server.patch(bench.org(`/workspace/${workspace}`), {
        data: {
          type: 'workspace',
          id: workspace,
          attributes: { source: url },
          relationships: { ssh: { data: { type: 'ssh', id: keys[key] } } },
        },
      });
      assert.equal(moved.status, 204, moved.text);
      return { workspace, url };
    }

    it("checks out a workspace's repository with its SSH key and runs the job", async () => {
      const sshFolders = () => readdirSync(tmpdir()).filter((entry) => entry.startsWith('stratum-ssh-')).length;
      const { workspace, url } = await workspaceOverSsh('over-ssh', 'accepted');
      const id = await bench.startJob(workspace, await bench.templateNamed('Plan and apply'));
      const done = await bench.statusOf(id, 'completed');
      const plan = await bench.logOf(done.steps[0]?.attributes.output);
      assert.ok(plan.includes(`Checking out ${url} at main`), plan);
      assert.match(await bench.logOf(done.steps[1]?.attributes.output), /applied/);
      assertNoKey(plan, accepted);
      // The key's folder goes as soon as git is done with it (another suite's may be there meanwhile).
      assert.ok(sshFolders() <= 1);
    });

    it('fails the job with the reason when the server does not take the key', async () => {
      const { workspace } = await workspaceOverSsh('refused-key', 'refused');
      const id = await bench.startJob(workspace, await bench.templateNamed('Plan'));
      const failed = await bench.statusOf(id, 'failed');
      assert.match(String(failed.job.attributes.comments), /^Step 100 \(Plan\) failed: [^ ]+@127.0.0.1: Permission denied \(publickey\)/);
      const plan = await bench.logOf(failed.steps[0]?.attributes.output);
      assertNoKey(plan + JSON.stringify(failed), refused);
    });

    it("publishes a module from its SSH address with the module's key", async () => {
      bench.git.repository('module-over-ssh', [
        { files: { 'main.tf': 'variable "cidr" {}\n' }, tags: ['v1.0.0'] },
        { files: { 'outputs.tf': 'output "id" { value = "x" }\n' }, tags: ['v1.1.0'] },
      ]);
      const source = ssh.url(bench.git.path('module-over-ssh'));
      const publish = (name: string, key: string) =>
        bench.server.post(bench.org('/module'), {
          data: {
            type: 'module',
            attributes: { name, provider: 'aws', description: 'A network', source },
            relationships: { ssh: { data: { type: 'ssh', id: keys[key] } } },
          },
        });
      const created = await publish('network', 'accepted');
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.attributes.latestVersion, '1.1.0');
      const refusedModule = await publish('other', 'refused');
      assert.equal(refusedModule.status, 422, refusedModule.text);
      assertNoKey(refusedModule.text, refused);
    });
  });
}

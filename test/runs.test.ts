/**
 * Jobs run end to end: the executor in the server takes a job, checks out the workspace's
 * repository from a git server on loopback, runs Terraform against Stratum's own state backend,
 * stores and streams the logs (redacted), waits for approvals, and ends the job; schedules start
 * jobs by themselves. The binary is the one test/terraform-binary.ts chooses: a real Terraform where
 * there is one, else the stand-in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTemplate, eventually, resourceDocument, storeKinds } from './harness.ts';
import { binaryName, RunBench, secretValue, type JsonRecord } from './run-fixtures.ts';

const flow = (steps: string) => Buffer.from(`flow:\n${steps}`).toString('base64');
const planApproveApply = flow(
  '  - type: "terraformPlan"\n    name: "Plan"\n    step: 100\n  - type: "approval"\n    name: "Approve"\n    step: 150\n    team: "ops"\n  - type: "terraformApply"\n    name: "Apply"\n    step: 200\n',
);

for (const kind of storeKinds) {
  describe(`runs (${kind}, ${binaryName})`, () => {
    let bench: RunBench;
    let template: string;
    // Read at run time, once the bench has started.
    const server = () => bench.server;
    const org = (rest = '') => bench.org(rest);
    const workspaceRunning = (name: string, command: string) => bench.workspaceRunning(name, command);
    const startJob = (workspace: string, templateId = template) => bench.startJob(workspace, templateId);
    const templateNamed = (name: string) => bench.templateNamed(name);
    const jobOf = (id: string) => bench.jobOf(id);
    const logOf = (output: unknown) => bench.logOf(output);
    const statusOf = (id: string, expected: string) => bench.statusOf(id, expected);

    before(async () => {
      bench = await RunBench.start(kind);
      template = await createTemplate(bench.server, bench.organization, { name: 'Plan, approve, apply', tcl: planApproveApply });
    });
    after(() => bench.stop());

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
      // The plan's structured view, as the web UI's job page reads it.
      const context = await server().get(`/context/v1/${id}`);
      assert.equal(context.status, 200, context.text);
      const [change, ...others] = context.body.planStructuredOutput[String(waiting.steps[0]?.id)];
      assert.deepEqual(others, []);
      assert.equal(change.address, 'terraform_data.greeting');
      assert.equal(change.resourceType, 'terraform_data');
      assert.equal(change.resourceName, 'greeting');
      assert.deepEqual([change.action, change.actions], ['create', ['create']]);
      assert.equal(change.before, null);
      assert.deepEqual(change.after, { input: 'alpha', triggers_replace: { name: 'alpha' } });
      assert.deepEqual(change.afterUnknown, { id: true, output: true, triggers_replace: {} });
      assert.doesNotMatch(context.text, new RegExp(secretValue));

      const approved = await server().patch(org(`/job/${id}`), resourceDocument('job', { status: 'approved' }, { id }));
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

      const state = await server().get(`/tfstate/v1/organization/${bench.organization}/workspace/${workspace}/state/terraform.tfstate`);
      assert.equal(state.status, 200, state.text);
      assert.equal(state.body.outputs.greeting.value, 'hello-alpha');
      assert.equal(await bench.stateLocks(workspace), 0);
      const workspaceRead = await server().get(org(`/workspace/${workspace}`));
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

    it("keeps what Terraform marks sensitive out of a plan's structured view, terraform_data's copy of it too", async () => {
      // Sensitive to Terraform only: Stratum holds it as a plain variable, so no redaction of its own hides it.
      const workspace = await bench.workspaceOf(
        'sensitive-input',
        {
          'main.tf':
            'variable "token" {\n  type      = string\n  sensitive = true\n}\n\nresource "terraform_data" "token" {\n  input = var.token\n}\n',
        },
        [{ key: 'token', value: 'first-t0ken', category: 'TERRAFORM' }],
      );
      await statusOf(await startJob(workspace, await templateNamed('Plan and apply')), 'completed');
      const variables = (await server().get(org(`/workspace/${workspace}/variable`))).body.data as JsonRecord[];
      const token = variables.find((variable) => variable.attributes.key === 'token');
      assert.ok(token);
      const changed = await server().patch(org(`/workspace/${workspace}/variable/${token.id}`), {
        data: { type: 'variable', id: token.id, attributes: { value: 'second-t0ken' } },
      });
      assert.equal(changed.status, 204, changed.text);

      const id = await startJob(workspace, await templateNamed('Plan'));
      const planned = await statusOf(id, 'completed');
      const context = await server().get(`/context/v1/${id}`);
      assert.equal(context.status, 200, context.text);
      const [change] = context.body.planStructuredOutput[String(planned.steps[0]?.id)];
      // Terraform shows the output it copied from the first token unmarked; the view hides it with the input.
      assert.deepEqual([change.address, change.actions], ['terraform_data.token', ['update']]);
      assert.deepEqual(change.before, { id: change.before.id, input: null, output: null, triggers_replace: null });
      assert.deepEqual(change.changedSensitive, { input: true, output: true });
      assert.doesNotMatch(context.text, /first-t0ken|second-t0ken/);
    });

    it('applies the flow the job started with, whatever its template says by the time it is approved', async () => {
      const kept = await createTemplate(server(), bench.organization, { name: 'Kept flow', tcl: planApproveApply });
      const workspace = await workspaceRunning('kept-flow', 'echo kept');
      const id = await startJob(workspace, kept);
      await statusOf(id, 'waitingApproval');
      // The template changes under the waiting job: its apply is gone, and a step it never had takes its place.
      const changed = flow(
        '  - type: "terraformPlan"\n    name: "Plan"\n    step: 100\n  - type: "terraformDestroy"\n    name: "Gone"\n    step: 300\n',
      );
      const edited = await server().patch(org(`/template/${kept}`), resourceDocument('template', { tcl: changed }, { id: kept }));
      assert.equal(edited.status, 204, edited.text);
      const approved = await server().patch(org(`/job/${id}`), resourceDocument('job', { status: 'approved' }, { id }));
      assert.equal(approved.status, 204, approved.text);
      const done = await statusOf(id, 'completed');
      assert.deepEqual(
        done.steps.map((step) => [step.attributes.name, step.attributes.status]),
        [
          ['Plan', 'completed'],
          ['Approve', 'completed'],
          ['Apply', 'completed'],
        ],
      );
      assert.match(await logOf(done.steps[2]?.attributes.output), /Apply complete/);
    });

    it('runs one job of a workspace at a time: a second waits, pending, behind one waiting for its approval', async () => {
      const workspace = await workspaceRunning('queue', 'echo queued');
      const first = await startJob(workspace);
      await statusOf(first, 'waitingApproval');
      const second = await startJob(workspace);
      // The executor looks every 2 s and whenever a status changes: it has had its chance.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal((await jobOf(second)).job.attributes.status, 'pending');
      const approved = await server().patch(org(`/job/${first}`), resourceDocument('job', { status: 'approved' }, { id: first }));
      assert.equal(approved.status, 204, approved.text);
      await statusOf(first, 'completed');
      // The first applied what the second would: it finds nothing to change.
      await statusOf(second, 'noChanges');
    });

    it('ends a rejected job at once, its approval rejected and the apply not run, and frees its workspace', async () => {
      const workspace = await workspaceRunning('rejected', 'echo never-applied');
      const id = await startJob(workspace);
      await statusOf(id, 'waitingApproval');
      const rejected = await server().patch(org(`/job/${id}`), resourceDocument('job', { status: 'rejected' }, { id }));
      assert.equal(rejected.status, 204, rejected.text);
      const ended = await jobOf(id);
      assert.equal(ended.job.attributes.status, 'rejected');
      assert.deepEqual(
        ended.steps.map((step) => step.attributes.status),
        ['completed', 'rejected', 'notExecuted'],
      );
      const next = await startJob(workspace, await templateNamed('Plan'));
      await statusOf(next, 'completed');
    });

    it("runs a step's onFailure scripts when a script before its work, or its work, fails: not after it succeeded, nor when a script after it failed", async () => {
      const onFailure = [
        '    onFailure:',
        '      - script: echo "on-failure-ran with $SECRET_TOKEN"',
        '        priority: 2',
        '      - script: echo first-on-failure',
        '        priority: 1',
        '        verbose: true',
      ];
      const templateOf = (type: string, commands: string[]) =>
        createTemplate(server(), bench.organization, {
          tcl: flow([`  - type: "${type}"`, '    step: 100', '    commands:', ...commands, ...onFailure, ''].join('\n')),
        });
      const after = await templateOf('terraformApply', ['      - script: echo after-ran', '        after: true', '        verbose: true']);
      const failingBefore = await templateOf('terraformPlan', ['      - script: exit 4', '        before: true']);
      const failingAfter = await templateOf('terraformPlan', ['      - script: exit 5', '        after: true']);
      const logOfJob = async (workspace: string, templateId: string, expected: string) => {
        const { job, steps } = await statusOf(await startJob(workspace, templateId), expected);
        return { comments: String(job.attributes.comments), log: await logOf(steps[0]?.attributes.output) };
      };

      const failedApply = await logOfJob(await workspaceRunning('apply-fails', 'exit 3'), after, 'failed');
      assert.match(failedApply.comments, /^Step 100 \(Running Step 100\) failed: terraform apply exited with code 1\./);
      // In priority order, a verbose one shown with its priority before its output; secrets redacted as everywhere.
      assert.match(
        failedApply.log,
        /The step failed: running its onFailure scripts\.\n\n\$ script 1 of 2\n--- priority 1, BASH:\necho first-on-failure\n--- its output:\nfirst-on-failure\n--- end of script 1\n\n\$ script 2 of 2\non-failure-ran with \*\*\*\n/,
      );
      assert.doesNotMatch(failedApply.log, /after-ran/);

      const applied = await logOfJob(await workspaceRunning('apply-succeeds', 'echo applied'), after, 'completed');
      assert.match(applied.log, /--- priority 0, BASH:\necho after-ran\n--- its output:\nafter-ran\n--- end of script 1\n/);
      assert.doesNotMatch(applied.log, /on-failure-ran|first-on-failure|onFailure scripts/);

      const before = await logOfJob(await workspaceRunning('before-fails', 'echo never'), failingBefore, 'failed');
      assert.match(before.comments, /script 1 exited with code 4/);
      assert.match(before.log, /first-on-failure\n[^]*on-failure-ran with \*\*\*/);
      assert.doesNotMatch(before.log, /\$ terraform plan/);

      const afterFailed = await logOfJob(await workspaceRunning('after-fails', 'echo never'), failingAfter, 'failed');
      assert.match(afterFailed.comments, /script 1 exited with code 5/);
      assert.doesNotMatch(afterFailed.log, /on-failure-ran|first-on-failure|onFailure scripts/);
    });

    it('serves a step log only to callers who see the job, and streams it while the step runs, to an end event with its status', async () => {
      const workspace = await workspaceRunning('stream', 'for i in 1 2 3 4 5 6 7 8 9 10; do echo line-$i; sleep 0.3; done');
      const planAndApply = await templateNamed('Plan and apply');
      const id = await startJob(workspace, planAndApply);
      const running = await bench.stepRuns(id, 1);
      const url = new URL(String(running.attributes.output));
      assert.match(url.pathname, new RegExp(`^/tfoutput/v1/organization/${bench.organization}/job/${id}/step/[0-9a-f-]+$`));
      const stream = await fetch(`${server().url}${url.pathname}/stream`, { headers: { authorization: `Bearer ${server().adminToken}` } });
      assert.equal(stream.status, 200);
      assert.match(String(stream.headers.get('content-type')), /^text\/event-stream/);
      const events = await stream.text();
      assert.match(events, /data: .*line-10/);
      assert.match(events, /^id: \d+$/m);
      // The last event says the step ended, and how; every other event is a line of the log (or a keep-alive).
      const [last, ...lines] = events.trimEnd().split('\n\n').reverse();
      assert.equal(last, 'event: end\ndata: {"status":"completed"}');
      assert.ok(
        lines.every((event) => /^(id: \d+\ndata: |: keep-alive$)/.test(event)),
        events,
      );
      await statusOf(id, 'completed');
      // A client that reconnects from the last line (as an EventSource does when a stream closes) gets only the end.
      const lastId = String(/^id: (\d+)$/m.exec(lines.find((event) => event.startsWith('id: ')) ?? '')?.[1]);
      const resumed = await fetch(`${server().url}${url.pathname}/stream`, {
        headers: { authorization: `Bearer ${server().adminToken}`, 'last-event-id': lastId },
      });
      assert.equal(await resumed.text(), 'event: end\ndata: {"status":"completed"}\n\n');

      const stranger = await server().token();
      assert.equal((await server().get(url.pathname, { token: stranger })).status, 404);
      assert.equal((await server().get(`${url.pathname}/stream`, { token: stranger })).status, 404);
      assert.equal((await server().get(url.pathname, { token: null })).status, 401);
      const context = await server().get(`/context/v1/${id}`);
      assert.equal(context.status, 200);
      const { steps } = await jobOf(id);
      assert.deepEqual(Object.keys(context.body.planStructuredOutput), [steps[0]?.id]);
      assert.equal((await server().get(`/context/v1/${id}`, { token: stranger })).status, 404);
    });

    it('cancels a running apply: the tool is interrupted, the lock released, and the workspace free again', async () => {
      const workspace = await workspaceRunning('cancel', 'sleep 30');
      const planAndApply = await templateNamed('Plan and apply');
      const id = await startJob(workspace, planAndApply);
      await eventually('the apply step runs', async () => assert.equal((await jobOf(id)).steps[1]?.attributes.status, 'running'), {
        timeoutMs: 60_000,
        intervalMs: 100,
      });
      const cancelled = await server().patch(org(`/job/${id}`), resourceDocument('job', { status: 'cancelled' }, { id }));
      assert.equal(cancelled.status, 204, cancelled.text);
      // At once, for a page that stops polling once the job has ended.
      assert.deepEqual(
        (await jobOf(id)).steps.map((step) => step.attributes.status),
        ['completed', 'cancelled'],
      );
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
      const output = new URL(String((await jobOf(id)).steps[1]?.attributes.output)).pathname;
      const stream = await fetch(`${server().url}${output}/stream`, { headers: { authorization: `Bearer ${server().adminToken}` } });
      // Cancelled before its executor first stored the log, maybe: the stream waits for the log, then ends.
      const cancelledEvents = await stream.text();
      assert.match(cancelledEvents, /^id: \d+\ndata: Running on executor /);
      assert.match(cancelledEvents, /\n\nevent: end\ndata: \{"status":"cancelled"\}\n\n$/);
      await eventually('the state lock is released', async () => assert.equal(await bench.stateLocks(workspace), 0));
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
      const created = await server().post(org(`/workspace/${workspace}/schedule`), {
        data: { type: 'schedule', attributes: { cron, templateReference: plan } },
      });
      assert.equal(created.status, 201, created.text);
      // A schedule whose only time has passed never fires.
      const past = await server().post(org(`/workspace/${workspace}/schedule`), {
        data: { type: 'schedule', attributes: { cron: '0 0 0 1 1 ? 2020', templateReference: plan } },
      });
      assert.equal(past.status, 201, past.text);
      const jobs = await eventually(
        'the schedule made a job',
        async () => {
          const response = await server().get(org(`/workspace/${workspace}/job`));
          const list = response.body.data as JsonRecord[];
          assert.equal(list.length, 1, response.text);
          return list;
        },
        { timeoutMs: 30_000, intervalMs: 250 },
      );
      assert.equal(jobs[0]?.attributes.via, 'Schedule');
      await statusOf(jobs[0].id, 'completed');
      const schedule = await server().get(org(`/workspace/${workspace}/schedule/${String(created.body.data.id)}`));
      assert.equal(schedule.body.data.attributes.firing, true);
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal(((await server().get(org(`/workspace/${workspace}/job`))).body.data as JsonRecord[]).length, 1);
    });
  });
}

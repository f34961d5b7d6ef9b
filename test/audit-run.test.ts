/**
 * The audit trail of a run: a plan, an approval and an apply leave one change row per job status
 * move, per step status move, per state version and per record written, each naming who made it
 * (the executor for its moves, the approving user, the job's state credential for the state it
 * wrote), and no row holds a sensitive variable's value. The rows are read from the database itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTemplate, resourceDocument, storeKinds } from './harness.ts';
import { binaryName, RunBench, secretValue } from './run-fixtures.ts';

const planApproveApply = Buffer.from(
  'flow:\n  - type: "terraformPlan"\n    name: "Plan"\n    step: 100\n  - type: "approval"\n    name: "Approve"\n    step: 150\n    team: "ops"\n  - type: "terraformApply"\n    name: "Apply"\n    step: 200\n',
).toString('base64');

interface ChangeRow {
  id: string;
  at: string;
  actor_kind: string;
  actor_subject: string;
  actor_job_id: string | null;
  record_type: string;
  record_id: string;
  action: string;
  transport: string;
  organization_id: string | null;
  attributes: Record<string, { before?: unknown; after?: unknown; sensitive?: true }>;
  text: string;
}

/** The status moves of one record, as its change rows say them: each a before and an after, with who made it. */
function statusMoves(rows: ChangeRow[]): { from: unknown; to: unknown; row: ChangeRow }[] {
  return rows
    .filter((row) => row.attributes.status !== undefined)
    .map((row) => ({ from: row.attributes.status?.before, to: row.attributes.status?.after, row }));
}

/** The moves in the order they were made, each from where the one before it left: none missing, none twice. */
function chain(moves: { from: unknown; to: unknown; row: ChangeRow }[], start: unknown): { from: unknown; to: unknown; row: ChangeRow }[] {
  const ordered = [...moves].sort((a, b) => (a.row.at === b.row.at ? a.row.id.localeCompare(b.row.id) : a.row.at.localeCompare(b.row.at)));
  let at = start;
  for (const move of ordered) {
    assert.equal(move.from, at, `a change from ${String(move.from)} follows one to ${String(at)}: ${move.row.text}`);
    at = move.to;
  }
  return ordered;
}

for (const kind of storeKinds) {
  describe(`the audit trail of a run (${kind}, ${binaryName})`, () => {
    let bench: RunBench;
    let template: string;

    before(async () => {
      bench = await RunBench.start(kind);
      template = await createTemplate(bench.server, bench.organization, { name: 'Plan, approve, apply', tcl: planApproveApply });
    });
    after(() => bench.stop());

    const changesOf = async (): Promise<ChangeRow[]> =>
      (await bench.server.query('select * from record_change')).map((row) => ({
        ...(row as unknown as ChangeRow),
        actor_job_id: row.actor_job_id === null ? null : String(row.actor_job_id as string | number),
        record_id: String(row.record_id),
        attributes: JSON.parse(String(row.attributes)),
        text: JSON.stringify(row),
      }));

    it('records every job and step move, state version and record write of a plan, approval and apply, with its actor, and no secret', async () => {
      const workspace = await bench.workspaceRunning('audited', 'echo provisioned-with-$SECRET_TOKEN');
      const jobId = await bench.startJob(workspace, template);
      await bench.statusOf(jobId, 'waitingApproval');
      const approved = await bench.server.patch(bench.org(`/job/${jobId}`), resourceDocument('job', { status: 'approved' }, { id: jobId }));
      assert.equal(approved.status, 204, approved.text);
      const done = await bench.statusOf(jobId, 'completed');
      const changes = await changesOf();

      // No row holds the sensitive value, in its attributes or anywhere else.
      for (const row of changes) assert.doesNotMatch(row.text, new RegExp(secretValue));
      const variables = changes.filter((row) => row.record_type === 'variable' && row.action === 'create');
      assert.equal(variables.length, 2);
      assert.ok(variables.some((row) => row.attributes.value?.sensitive === true));

      // The job: created by the user, then one change per status move, the executor's naming the job.
      const job = changes.filter((row) => row.record_type === 'job' && row.record_id === jobId);
      const created = job.filter((row) => row.action === 'create');
      const [creation] = created;
      assert.ok(created.length === 1 && creation !== undefined);
      assert.equal(creation.actor_kind, 'user');
      const moves = chain(statusMoves(job.filter((row) => row.action === 'update')), creation.attributes.status?.after);
      assert.deepEqual(
        moves.map((move) => `${String(move.from)}>${String(move.to)}`),
        ['pending>queue', 'queue>running', 'running>waitingApproval', 'waitingApproval>approved', 'approved>running', 'running>completed'],
      );
      for (const move of moves) {
        if (move.to === 'approved') {
          assert.deepEqual([move.row.actor_kind, move.row.actor_subject, move.row.transport], ['user', 'admin@example.com', 'jsonapi']);
          assert.equal(move.row.actor_job_id, null);
        } else {
          assert.deepEqual(
            [move.row.actor_kind, move.row.transport, move.row.actor_job_id],
            ['executor', 'executor', jobId],
            move.row.text,
          );
        }
        assert.equal(move.row.organization_id, bench.organization);
      }

      // The flow the job started with, kept once, as the user's start of it, naming its template.
      const flows = changes.filter((row) => row.record_type === 'jobFlow' && row.record_id === jobId);
      assert.equal(flows.length, 1);
      assert.deepEqual([flows[0]?.action, flows[0]?.actor_kind], ['create', 'user']);
      assert.deepEqual(flows[0]?.attributes.template, { after: template });

      // Each step: created with the job, then one change per status move, to where the step ended.
      assert.equal(done.steps.length, 3);
      for (const step of done.steps) {
        const rows = changes.filter((row) => row.record_type === 'step' && row.record_id === step.id);
        const stepCreated = rows.filter((row) => row.action === 'create');
        assert.equal(stepCreated.length, 1);
        const stepMoves = chain(statusMoves(rows.filter((row) => row.action === 'update')), stepCreated[0]?.attributes.status?.after);
        assert.ok(stepMoves.length >= 1, `step ${step.id} never moved`);
        assert.equal(stepMoves.at(-1)?.to, 'completed');
        for (const move of stepMoves) {
          // The approval step completes with the job's approval, the user's; every other move is the executor's, for the job.
          if (move.row.actor_kind === 'user') assert.equal(move.row.actor_subject, 'admin@example.com');
          else assert.deepEqual([move.row.actor_kind, move.row.actor_job_id], ['executor', jobId], move.row.text);
        }
      }

      // Each state version the job's credential wrote: one change of its history record, the job's, through the state backend.
      const versions = await bench.server.query('select id from history where workspace_id = $1', [workspace]);
      assert.ok(versions.length >= 1);
      for (const version of versions) {
        const rows = changes.filter((row) => row.record_type === 'history' && row.record_id === String(version.id));
        assert.equal(rows.length, 1, `history ${String(version.id)}`);
        assert.deepEqual(
          [rows[0]?.action, rows[0]?.actor_kind, rows[0]?.actor_job_id, rows[0]?.transport],
          ['create', 'stateCredential', jobId, 'state'],
        );
        assert.equal(rows[0]?.organization_id, bench.organization);
      }
      // Its locks: each taken and released by the job, named by the lock's ID, never Terraform's lock info.
      const locks = changes.filter((row) => row.record_type === 'state lock' && row.record_id === workspace);
      assert.ok(locks.length >= 2);
      assert.equal(locks.filter((row) => row.action === 'create').length, locks.filter((row) => row.action === 'delete').length);
      for (const row of locks) {
        assert.deepEqual([row.actor_kind, row.actor_job_id], ['stateCredential', jobId]);
        assert.deepEqual(Object.keys(row.attributes).sort(), ['lockId', 'lockedBy']);
      }

      // The records the user wrote: the workspace, its variables, the template.
      for (const [type, id] of [
        ['workspace', workspace],
        ['template', template],
      ] as const) {
        const rows = changes.filter((row) => row.record_type === type && row.record_id === id && row.action === 'create');
        assert.equal(rows.length, 1, `${type} ${id}`);
        assert.equal(rows[0]?.actor_kind, 'user');
      }
    });
  });
}

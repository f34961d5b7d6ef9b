/**
 * The structured view of a plan, from `show -json` as Terraform prints it: what the web UI's job
 * page draws, with every value Terraform marks sensitive removed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planView, type PlanChange } from '../src/runs/plan-view.ts';

const plan = (...resourceChanges: unknown[]) => ({ format_version: '0.1', resource_changes: resourceChanges });
const resource = (address: string, type: string, change: Record<string, unknown>) => ({
  address,
  module_address: address.startsWith('module.') ? address.split('.').slice(0, 2).join('.') : undefined,
  type,
  name: address.split('.').at(-1),
  change: { before: null, after: null, after_unknown: {}, before_sensitive: false, after_sensitive: false, ...change },
});

function onlyChange(view: PlanChange[] | undefined): PlanChange {
  assert.equal(view?.length, 1);
  const [change] = view;
  assert.ok(change);
  return change;
}

describe('the structured view of a plan', () => {
  it('lists what the plan changes, with its action, and leaves out what it keeps', () => {
    const view = planView(
      plan(
        resource('terraform_data.kept', 'terraform_data', { actions: ['no-op'] }),
        resource('terraform_data.new', 'terraform_data', {
          actions: ['create'],
          after: { input: 'a', triggers_replace: { name: 'a' } },
          after_unknown: { id: true, output: true, triggers_replace: {} },
          after_sensitive: { triggers_replace: {} },
        }),
        resource('module.net.terraform_data.old', 'terraform_data', {
          actions: ['delete', 'create'],
          before: { id: '1', input: null, output: null, triggers_replace: null },
          after: { input: null, output: null, triggers_replace: null },
        }),
        resource('terraform_data.imported', 'terraform_data', { actions: ['no-op'], importing: { id: 'i-1' } }),
      ),
    );
    assert.deepEqual(
      view?.map((change) => [change.address, change.action, change.moduleAddress]),
      [
        ['terraform_data.new', 'create', undefined],
        ['module.net.terraform_data.old', 'replace', 'module.net'],
        ['terraform_data.imported', 'import', undefined],
      ],
    );
    const [created, , imported] = view;
    assert.deepEqual(
      [created?.after, created?.afterUnknown],
      [
        { input: 'a', triggers_replace: { name: 'a' } },
        { id: true, output: true, triggers_replace: {} },
      ],
    );
    assert.deepEqual(imported?.importing, { id: 'i-1' });
  });

  it('removes every value marked sensitive, at any depth, and says which of them change', () => {
    const change = onlyChange(
      planView(
        plan(
          resource('aws_db_instance.main', 'aws_db_instance', {
            actions: ['update'],
            before: { password: 'old-secret', name: 'db', tags: [{ token: 't1' }, { token: 'same' }] },
            after: { password: 'new-secret', name: 'db', tags: [{ token: 't2' }, { token: 'same' }] },
            before_sensitive: { password: true, tags: [{ token: true }, { token: true }] },
            after_sensitive: { password: true, tags: [{ token: true }, { token: true }] },
          }),
        ),
      ),
    );
    assert.deepEqual(change.before, { password: null, name: 'db', tags: [{ token: null }, { token: null }] });
    assert.deepEqual(change.after, { password: null, name: 'db', tags: [{ token: null }, { token: null }] });
    assert.deepEqual(change.changedSensitive, { password: true, tags: [{ token: true }, null] });
    assert.doesNotMatch(JSON.stringify(change), /secret|t1|t2/);
  });

  it("marks terraform_data's output as sensitive as its input, which Terraform does not", () => {
    // As Terraform 1.11.4 shows a change of a sensitive input: the output it copied is not marked.
    const change = onlyChange(
      planView(
        plan(
          resource('terraform_data.key', 'terraform_data', {
            actions: ['update'],
            before: { id: 'b0f7c1e2-5d3a-4c8b-9e6f-0a1b2c3d4e5f', input: 'k3y', output: 'k3y', triggers_replace: ['a'] },
            after: { id: 'b0f7c1e2-5d3a-4c8b-9e6f-0a1b2c3d4e5f', input: 'k4y', triggers_replace: ['a'] },
            after_unknown: { output: true, triggers_replace: [false] },
            before_sensitive: { input: true, triggers_replace: [false] },
            after_sensitive: { input: true, triggers_replace: [false] },
          }),
        ),
      ),
    );
    assert.deepEqual(change.before, { id: 'b0f7c1e2-5d3a-4c8b-9e6f-0a1b2c3d4e5f', input: null, output: null, triggers_replace: ['a'] });
    assert.deepEqual(change.after, { id: 'b0f7c1e2-5d3a-4c8b-9e6f-0a1b2c3d4e5f', input: null, triggers_replace: ['a'] });
    assert.deepEqual(change.changedSensitive, { input: true, output: true });
    assert.doesNotMatch(JSON.stringify(change), /k3y|k4y/);
  });

  it('is no view of something that is not a plan', () => {
    assert.equal(planView({ values: {} }), undefined);
    assert.equal(planView('text'), undefined);
    assert.deepEqual(planView({ format_version: '1.2' }), []);
  });
});

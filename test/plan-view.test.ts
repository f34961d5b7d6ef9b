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
        resource('null_resource.kept', 'null_resource', { actions: ['no-op'] }),
        resource('null_resource.new', 'null_resource', {
          actions: ['create'],
          after: { triggers: { name: 'a' } },
          after_unknown: { id: true },
        }),
        resource('module.net.null_resource.old', 'null_resource', {
          actions: ['delete', 'create'],
          before: { id: '1' },
          after: { id: null },
        }),
        resource('null_resource.imported', 'null_resource', { actions: ['no-op'], importing: { id: 'i-1' } }),
      ),
    );
    assert.deepEqual(
      view?.map((change) => [change.address, change.action, change.moduleAddress]),
      [
        ['null_resource.new', 'create', undefined],
        ['module.net.null_resource.old', 'replace', 'module.net'],
        ['null_resource.imported', 'import', undefined],
      ],
    );
    const [created, , imported] = view;
    assert.deepEqual([created?.after, created?.afterUnknown], [{ triggers: { name: 'a' } }, { id: true }]);
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

  it("marks terraform_data's output as sensitive as its input", () => {
    const change = onlyChange(
      planView(
        plan(
          resource('terraform_data.key', 'terraform_data', {
            actions: ['create'],
            after: { input: 'k3y', output: 'k3y' },
            after_sensitive: { input: true },
          }),
        ),
      ),
    );
    assert.deepEqual(change.after, { input: null, output: null });
  });

  it('is no view of something that is not a plan', () => {
    assert.equal(planView({ values: {} }), undefined);
    assert.equal(planView('text'), undefined);
    assert.deepEqual(planView({ format_version: '1.2' }), []);
  });
});

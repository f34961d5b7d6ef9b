import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FlowReading } from '../src/runs/flow.ts';
import { flowFaultAtSave, readFlow } from '../src/runs/flow-reading.ts';

const encode = (yaml: string) => Buffer.from(yaml).toString('base64');
const steps = (reading: FlowReading) => {
  assert.ok('steps' in reading, 'problem' in reading ? reading.problem : '');
  return reading.steps;
};
const problem = (reading: FlowReading) => {
  assert.ok('problem' in reading, 'a flow that should be refused was read');
  return reading.problem;
};

describe('template flows', () => {
  it("reads Terrakube's default templates and orders steps by number", () => {
    const flow = steps(
      readFlow(
        encode(
          [
            'flow:',
            '  - type: "terraformApply"',
            '    name: "Apply"',
            '    step: 300',
            '  - type: "approval"',
            '    name: "Approve Plan from Terraform CLI"',
            '    step: 150',
            '    team: "TERRAFORM_CLI"',
            '  - type: "terraformPlan"',
            '    name: "Plan"',
            '    step: 100',
          ].join('\n'),
        ),
      ),
    );
    assert.deepEqual(
      flow.map(({ type, step, name, team }) => ({ type, step, name, team })),
      [
        { type: 'terraformPlan', step: 100, name: 'Plan', team: undefined },
        { type: 'approval', step: 150, name: 'Approve Plan from Terraform CLI', team: 'TERRAFORM_CLI' },
        { type: 'terraformApply', step: 300, name: 'Apply', team: undefined },
      ],
    );
  });

  it('reads commands before and after a step, and scripts of their own', () => {
    const [plan, scripts] = steps(
      readFlow(
        encode(`flow:
  - type: terraformPlan
    step: 100
    commands:
      - runtime: BASH
        priority: 100
        before: true
        script: |
          echo "before the plan"
      - script: echo after
        after: true
    inputsEnv:
      REGION: eu-west-1
      COUNT: 3
  - type: customScripts
    step: 200
    commands:
      - runtime: BASH
        script: ./check.sh
`),
      ),
    );
    assert.equal(plan?.name, 'Running Step 100');
    assert.deepEqual(
      plan.commands.map(({ runtime, script, priority, before, after }) => ({ runtime, script, priority, before, after })),
      [
        { runtime: 'BASH', script: 'echo "before the plan"\n', priority: 100, before: true, after: false },
        { runtime: 'BASH', script: 'echo after', priority: 0, before: false, after: true },
      ],
    );
    assert.deepEqual(plan.inputsEnv, { REGION: 'eu-west-1', COUNT: '3' });
    assert.equal(scripts?.commands[0]?.script, './check.sh');
  });

  it('reads onFailure scripts, verbose commands, and inputs: absent is none, an empty mapping imports nothing', () => {
    const [apply, scripts] = steps(
      readFlow(
        encode(`flow:
  - type: terraformApply
    step: 100
    onFailure:
      - script: echo failed
        verbose: true
    onReject: []
    inputsTerraform:
      region: $REGION
    inputsEnv: {}
  - type: customScripts
    step: 200
    inputsEnv:
    commands:
      - script: "true"
`),
      ),
    );
    assert.deepEqual(
      apply?.onFailure.map(({ script, verbose }) => ({ script, verbose })),
      [{ script: 'echo failed', verbose: true }],
    );
    assert.deepEqual([apply.inputsTerraform, apply.inputsEnv], [{ region: '$REGION' }, {}]);
    assert.deepEqual([scripts?.inputsTerraform, scripts?.inputsEnv], [undefined, undefined]);
    assert.deepEqual(scripts?.onFailure, []);
  });

  it('refuses a field Stratum would not act on, naming it and its line, when saved as when run', () => {
    const refused: [string, RegExp, number][] = [
      [
        'flow:\n  - type: approval\n    step: 150\n    onReject:\n      - script: echo rejected',
        /^Step 150 \(approval\) lists onReject scripts/,
        4,
      ],
      ['flow:\n  - type: terraformPlan\n    step: 100\n    onReject: {script: x}', /^Step 100 \(terraformPlan\) lists onReject/, 4],
      [
        'flow:\n  - type: customScripts\n    step: 5\n    onFailure:\n      - script: x\n    commands:\n      - script: y',
        /^Step 5 \(customScripts\) lists onFailure/,
        4,
      ],
      ['flow:\n  - type: approval\n    onFailure:\n      - script: x', /^Step 1 of the flow \(approval\) lists onFailure/, 3],
      ['flow:\n  - type: terraformPlan\n    step: 100\n    importCommands:\n      repository: x', /importCommands/, 4],
    ];
    for (const [yaml, reason, line] of refused) {
      const fault = flowFaultAtSave(encode(yaml));
      assert.match(fault?.problem ?? '', reason, yaml);
      assert.equal(fault?.line, line, yaml);
      assert.match(problem(readFlow(encode(yaml))), reason, yaml);
    }
  });

  it('checks at save what reads as a flow, naming the line at fault; other text is stored as given', () => {
    const faults: [string, RegExp, number | undefined][] = [
      ['flow: [unclosed', /^The template is not YAML: /, 1],
      ['flow:\n  - type: terraformPlan\n    step: 100\n  name: x', /not YAML/, 4],
      ['flow:\n  - type: terraformPlan\n    step: 100\nsteps: []', /unknown key "steps"/, 4],
      ['flow:\n  - type: terraformPlan\n    step: 100\n  - type: terraformDeploy\n    step: 200', /type "terraformDeploy"/, 4],
      ['# a comment\nflow:\n  - type: terraformPlan', /needs "step"/, 3],
      ['flow:\n  - type: terraformPlan\n    step: 100\n  - type: terraformApply\n    step: 100', /Two steps .* numbered 100/, 4],
      ['flow:\n  - type: customScripts\n    step: 100\n    commands:\n      - runtime: BASH', /needs "script"/, 2],
      ['flow:\n  - type: terraformPlan\n    step: 100\n    step: 200', /not YAML/, 4],
    ];
    for (const [yaml, reason, line] of faults) {
      const fault = flowFaultAtSave(encode(yaml));
      assert.match(fault?.problem ?? '', reason, yaml);
      assert.equal(fault?.line, line, yaml);
    }
    // Free text, base64 of something else, and a flow that can run are stored as given.
    for (const tcl of [
      'not base64!',
      'terraform {}',
      encode('steps:\n  - type: terraformPlan'),
      encode('just text'),
      encode('flow: []'),
      encode('flow: '),
      encode('flow:\n'),
      encode('flow:\n  - type: terraformPlan\n    step: 100\n  - type: terraformApply\n    step: 200'),
      encode('flow:\n  - type: terraformDestroy\n    step: 1\n    onFailure: [{script: x}]'),
    ])
      assert.equal(flowFaultAtSave(tcl), undefined, tcl);
  });

  it('refuses, with the reason, what cannot run: the job fails before anything runs', () => {
    const cases: [string, RegExp][] = [
      ['not base64 at all!', /not base64/],
      [encode('flow: [unclosed'), /not YAML/],
      [encode('flow: []'), /no steps/],
      [encode('steps:\n  - type: terraformPlan\n    step: 1'), /unknown key "steps"/],
      [encode('flow:\n  - type: terraformDeploy\n    step: 100'), /type "terraformDeploy"; a step's type is one of terraformPlan/],
      [encode('flow:\n  - type: terraformPlan'), /needs "step"/],
      [encode('flow:\n  - type: terraformPlan\n    step: 1.5'), /needs "step"/],
      [encode('flow:\n  - type: terraformPlan\n    step: 100\n  - type: terraformApply\n    step: 100'), /Two steps .* numbered 100/],
      [encode('flow:\n  - type: terraformPlan\n    step: 100\n    timeout: 5'), /unknown key "timeout"/],
      [encode('flow:\n  - type: customScripts\n    step: 100'), /lists no commands/],
      [
        encode('flow:\n  - type: terraformPlan\n    step: 100\n    commands:\n      - runtime: GROOVY\n        script: x'),
        /runtime "GROOVY"/,
      ],
      [encode('flow:\n  - type: terraformPlan\n    step: 100\n    commands:\n      - runtime: BASH'), /needs "script"/],
      [encode('flow:\n  - type: terraformPlan\n    step: 100\n    ignoreError: "yes"'), /ignoreError must be true or false/],
      [encode('flow:\n  - type: scheduleTemplates\n    step: 100'), /lists none/],
      [encode('flow:\n  - type: terraformPlan\n    step: 100\n    importCommands:\n      repository: x'), /importCommands/],
      [encode('flow:\n  - type: terraformPlan\n    step: 100\n    step: 200'), /not YAML/],
      [encode(`flow:\n${'  - type: terraformPlan\n    step: 1\n'.repeat(101)}`), /Two steps|at most 100/],
    ];
    for (const [tcl, reason] of cases) assert.match(problem(readFlow(tcl)), reason, tcl);
  });

  it('never expands YAML aliases, so a small template cannot grow into a large one', () => {
    const bomb = encode(
      ['a: &a ["x","x","x","x","x","x","x","x","x"]', 'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]', 'flow: [*b,*b,*b,*b,*b,*b,*b,*b,*b]'].join(
        '\n',
      ),
    );
    assert.match(problem(readFlow(bomb)), /alias|not YAML|unknown key/i);
  });
});

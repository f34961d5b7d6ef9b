/**
 * A run's variables: which layer wins a key, what a step's inputs import, what counts as a secret,
 * what stops a run, and that Terraform (the binary test/terraform-binary.ts chooses) reads the
 * written file with HCL values kept HCL and strings kept strings; then the same rules through jobs a
 * server runs, on each store.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assembleVariables, hclString, terraformVariablesFile, type RunVariable } from '../src/runs/run-variables.ts';
import { createCollection, createRecord, createTemplate, storeKinds } from './harness.ts';
import { RunBench } from './run-fixtures.ts';
import { StateBackendRecorder, terraformEnvironment } from './state-backend-recorder.ts';
import { binary, binaryName } from './terraform-binary.ts';

const plain = (key: string, value: string, more: Partial<RunVariable> = {}): RunVariable => ({
  key,
  value,
  category: 'TERRAFORM',
  hcl: false,
  sensitive: false,
  ...more,
});
const env = (key: string, value: string, more: Partial<RunVariable> = {}) => plain(key, value, { category: 'ENV', ...more });

describe('run variables', () => {
  it('lets the workspace win over global variables, global variables over collections, and a higher priority over a lower', async () => {
    const assembled = await assembleVariables({
      globals: [plain('region', 'global'), env('AWS_PROFILE', 'global'), plain('only_global', 'g')],
      collections: [
        {
          name: 'low',
          priority: 1,
          items: [plain('region', 'low'), plain('size', 'low'), plain('zone', 'low'), env('AWS_PROFILE', 'low')],
        },
        { name: 'high', priority: 10, items: [plain('region', 'high'), plain('zone', 'high'), env('AWS_PROFILE', 'high')] },
      ],
      workspace: [env('AWS_PROFILE', 'workspace'), plain('size', 'workspace')],
    });
    assert.deepEqual(assembled.problems, []);
    assert.deepEqual(assembled.environment, { AWS_PROFILE: 'workspace' });
    assert.equal(assembled.terraformFile, 'size = "workspace"\nregion = "global"\nonly_global = "g"\nzone = "high"\n');
  });

  it('takes, for a category a step imports, the global variables it names under its keys, and neither other globals nor collections', async () => {
    const layers = {
      globals: [
        plain('REGION', 'eu'),
        plain('other', 'not imported'),
        env('TOKEN', 'imported-secret', { sensitive: true }),
        env('PROFILE', 'global'),
      ],
      collections: [{ name: 'c', priority: 5, items: [plain('size', 'collection'), env('FROM_COLLECTION', 'c', { sensitive: true })] }],
      workspace: [plain('kept', 'workspace')],
    };
    const both = await assembleVariables(layers, {
      TERRAFORM: { region: '$REGION', kept: '$REGION', missing: '$NOPE' },
      ENV: { API_TOKEN: 'TOKEN' },
    });
    assert.deepEqual(both.problems, []);
    assert.equal(both.terraformFile, 'kept = "workspace"\nregion = "eu"\n');
    assert.deepEqual(both.environment, { API_TOKEN: 'imported-secret' });
    assert.deepEqual(both.notes, ['missing is not set: the organization has no TERRAFORM global variable NOPE.']);
    // What was not imported is still a secret of the run: a script may read it elsewhere.
    assert.deepEqual(both.secrets.sort(), ['c', 'imported-secret']);

    const terraformOnly = await assembleVariables(layers, { TERRAFORM: {} });
    assert.equal(terraformOnly.terraformFile, 'kept = "workspace"\n');
    assert.deepEqual(terraformOnly.environment, { TOKEN: 'imported-secret', PROFILE: 'global', FROM_COLLECTION: 'c' });

    const badKey = await assembleVariables(layers, { ENV: { 'NOT-A-NAME': '$TOKEN' } });
    assert.deepEqual(badKey.problems, ['The environment variable "NOT-A-NAME" is not a name an environment variable may have.']);
  });

  it('keeps a key of each category apart, and breaks a tie of priorities by name', async () => {
    const assembled = await assembleVariables({
      globals: [],
      collections: [
        { name: 'b', priority: 5, items: [plain('name', 'from b')] },
        { name: 'a', priority: 5, items: [plain('name', 'from a')] },
      ],
      workspace: [env('name', 'an environment variable')],
    });
    assert.equal(assembled.terraformFile, 'name = "from a"\n');
    assert.deepEqual(assembled.environment, { name: 'an environment variable' });
  });

  it('counts every sensitive value as a secret, even one a later layer replaced', async () => {
    const assembled = await assembleVariables({
      globals: [env('TOKEN', 'global-secret', { sensitive: true })],
      collections: [{ name: 'c', priority: 0, items: [plain('password', 'item-secret', { sensitive: true })] }],
      workspace: [env('TOKEN', 'workspace-secret', { sensitive: true }), plain('visible', 'not a secret')],
    });
    assert.deepEqual(assembled.secrets.sort(), ['global-secret', 'item-secret', 'workspace-secret']);
  });

  it('stops a run on an empty sensitive variable, a key Terraform refuses and an HCL value that does not parse, naming no value', async () => {
    const assembled = await assembleVariables({
      globals: [],
      collections: [],
      workspace: [
        plain('unset', '', { sensitive: true }),
        plain('bad key', 'x'),
        plain('broken', '[1, 2', { hcl: true, sensitive: true }),
        plain('smuggled', '1\nother = 2', { hcl: true }),
      ],
    });
    assert.deepEqual(assembled.problems, [
      'The sensitive variable unset has no value.',
      'The Terraform variable "bad key" is not a name Terraform accepts.',
      'The HCL value of the Terraform variable broken does not parse as HCL.',
      'The HCL value of the Terraform variable smuggled is more than one value.',
    ]);
  });

  it('quotes strings so that nothing in them is read as HCL', () => {
    assert.equal(hclString('a "quoted" ${var.x} %{if} \\ \n'), '"a \\"quoted\\" $${var.x} %%{if} \\\\ \\n"');
  });

  it(`gives Terraform (${binaryName}) strings as strings and HCL values as HCL`, { timeout: 120_000 }, async () => {
    const directory = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'run-variables-'));
    const assembled = await assembleVariables({
      globals: [],
      collections: [],
      workspace: [
        plain('text', 'a "quoted" ${not.an.expression} value'),
        plain('zones', '["a", "b"]', { hcl: true }),
        plain('tags', '{ team = "platform", cost = 3 }', { hcl: true }),
      ],
    });
    assert.deepEqual(assembled.problems, []);
    fs.writeFileSync(
      path.join(directory, 'main.tf'),
      [
        'terraform {\n  backend "http" {}\n}',
        'variable "text" {\n  type = string\n}',
        'variable "zones" {\n  type = list(string)\n}',
        'variable "tags" {\n  type = map(string)\n}',
        'output "text" {\n  value = var.text\n}',
        'output "zones" {\n  value = var.zones\n}',
        'output "tags" {\n  value = var.tags\n}',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(path.join(directory, terraformVariablesFile), assembled.terraformFile);
    const recorder = new StateBackendRecorder('stratum', 'password');
    const url = await recorder.start();
    try {
      const environment = terraformEnvironment(directory, url, recorder);
      // Run asynchronously: the recorder answers Terraform from this process.
      const run = (args: string[]) =>
        new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
          execFile(binary, args, { cwd: directory, env: environment }, (error, stdout, stderr) => {
            resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
          });
        });
      for (const args of [
        ['init', '-input=false', '-no-color'],
        ['apply', '-auto-approve', '-input=false', '-no-color'],
      ]) {
        const result = await run(args);
        assert.equal(result.status, 0, `${args[0] ?? ''}: ${result.stdout}${result.stderr}`);
      }
      const outputs = await run(['output', '-json']);
      const values = JSON.parse(outputs.stdout) as Record<string, { value: unknown }>;
      assert.equal(values.text?.value, 'a "quoted" ${not.an.expression} value');
      assert.deepEqual(values.zones?.value, ['a', 'b']);
      assert.deepEqual(values.tags?.value, { team: 'platform', cost: '3' });
    } finally {
      await recorder.stop();
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});

/** A configuration that outputs each named variable (a string, "unset" by default): no provider, so any Terraform applies it. */
const outputsOf = (names: string[]) =>
  names
    .map((name) => `variable "${name}" {\n  type    = string\n  default = "unset"\n}\n\noutput "${name}" {\n  value = var.${name}\n}\n`)
    .join('\n');

for (const kind of storeKinds) {
  describe(`run variables in jobs (${kind}, ${binaryName})`, () => {
    let bench: RunBench;
    before(async () => {
      bench = await RunBench.start(kind);
    });
    after(() => bench.stop());

    /** A workspace on a repository of `main.tf` alone, with these variables of its own. */
    const workspaceWith = (name: string, mainTf: string, variables: [key: string, value: string, category: 'TERRAFORM' | 'ENV'][]) =>
      bench.workspaceOf(
        name,
        { 'main.tf': mainTf },
        variables.map(([key, value, category]) => ({ key, value, category })),
      );
    const globalVariable = (key: string, value: string, category: string) =>
      createRecord(bench.server, bench.org('/globalvar'), 'globalvar', { key, value, category });
    async function collectionFor(
      workspace: string,
      name: string,
      priority: number,
      items: [key: string, value: string, category: string][],
    ) {
      const collection = await createCollection(bench.server, bench.organization, { name, priority });
      for (const [key, value, category] of items)
        await createRecord(bench.server, bench.org(`/collection/${collection}/item`), 'item', { key, value, category });
      await createRecord(
        bench.server,
        bench.org(`/collection/${collection}/reference`),
        'reference',
        {},
        { relationships: { workspace: { data: { type: 'workspace', id: workspace } } } },
      );
    }
    /** The outputs of the workspace's current state: what Terraform read. */
    async function outputsIn(workspace: string): Promise<Record<string, unknown>> {
      const state = await bench.server.get(`/tfstate/v1/organization/${bench.organization}/workspace/${workspace}/state/terraform.tfstate`);
      assert.equal(state.status, 200, state.text);
      return Object.fromEntries(
        Object.entries(state.body.outputs as Record<string, { value: unknown }>).map(([key, { value }]) => [key, value]),
      );
    }
    const applyOnly = (steps = '') =>
      Buffer.from(`flow:\n  - type: terraformApply\n    name: Apply\n    step: 100\n${steps}`).toString('base64');

    it('gives each key to the workspace over a global variable, a global variable over a collection, a higher priority over a lower, in both categories', async () => {
      // A TERRAFORM variable `x` and an ENV variable `TF_VAR_env_x` reach Terraform as var.x and var.env_x.
      const both = (key: string, value: string): [string, string, 'TERRAFORM' | 'ENV'][] => [
        [key, value, 'TERRAFORM'],
        [`TF_VAR_env_${key}`, value, 'ENV'],
      ];
      const expected = {
        w_over_g: 'workspace',
        w_over_c: 'workspace',
        g_over_c: 'global',
        high_over_low: 'high',
        tie: 'a',
        only_low: 'low',
      };
      const names = Object.keys(expected).flatMap((name) => [name, `env_${name}`]);
      const workspace = await workspaceWith('precedence', outputsOf(names), [
        ...both('w_over_g', 'workspace'),
        ...both('w_over_c', 'workspace'),
      ]);
      for (const [key, value, category] of [...both('w_over_g', 'global'), ...both('g_over_c', 'global')])
        await globalVariable(key, value, category);
      await collectionFor(workspace, 'low', 1, [
        ...both('w_over_c', 'low'),
        ...both('g_over_c', 'low'),
        ...both('high_over_low', 'low'),
        ...both('only_low', 'low'),
      ]);
      await collectionFor(workspace, 'high', 10, both('high_over_low', 'high'));
      // Equal priorities: the collection whose name sorts first.
      await collectionFor(workspace, 'tie-b', 5, both('tie', 'b'));
      await collectionFor(workspace, 'tie-a', 5, both('tie', 'a'));

      const template = await createTemplate(bench.server, bench.organization, { name: 'precedence', tcl: applyOnly() });
      await bench.statusOf(await bench.startJob(workspace, template), 'completed');
      assert.deepEqual(
        await outputsIn(workspace),
        Object.fromEntries(
          Object.entries(expected).flatMap(([name, value]) => [
            [name, value],
            [`env_${name}`, value],
          ]),
        ),
      );
    });

    it('gives a step that imports global variables (inputsTerraform, inputsEnv) those alone, under its names, and other steps everything', async () => {
      const names = [
        'imported',
        'w_over_import',
        'absent',
        'other_global',
        'from_collection',
        'env_imported',
        'env_other_global',
        'env_from_collection',
      ];
      const workspace = await workspaceWith('imports', outputsOf(names), [['w_over_import', 'workspace', 'TERRAFORM']]);
      await globalVariable('IMPORT_ME', 'from-global', 'TERRAFORM');
      await globalVariable('other_global', 'not imported', 'TERRAFORM');
      await globalVariable('IMPORT_ME_TOO', 'env-from-global', 'ENV');
      await globalVariable('TF_VAR_env_other_global', 'not imported', 'ENV');
      await collectionFor(workspace, 'imports-collection', 1, [
        ['from_collection', 'not imported', 'TERRAFORM'],
        ['TF_VAR_env_from_collection', 'not imported', 'ENV'],
      ]);
      const template = await createTemplate(bench.server, bench.organization, {
        name: 'imports',
        tcl: applyOnly(
          [
            '    inputsTerraform:',
            '      imported: $IMPORT_ME',
            '      w_over_import: $IMPORT_ME',
            '      absent: $NO_SUCH_GLOBAL',
            '    inputsEnv:',
            '      TF_VAR_env_imported: IMPORT_ME_TOO',
            '  - type: customScripts',
            '    step: 200',
            '    commands:',
            '      - script: echo "other step sees=$TF_VAR_env_other_global,$TF_VAR_env_from_collection,${TF_VAR_env_imported:-nothing}"',
            '',
          ].join('\n'),
        ),
      });
      const id = await bench.startJob(workspace, template);
      const { steps } = await bench.statusOf(id, 'completed');
      assert.deepEqual(await outputsIn(workspace), {
        imported: 'from-global',
        w_over_import: 'workspace',
        absent: 'unset',
        other_global: 'unset',
        from_collection: 'unset',
        env_imported: 'env-from-global',
        env_other_global: 'unset',
        env_from_collection: 'unset',
      });
      assert.match(
        await bench.logOf(steps[0]?.attributes.output),
        /absent is not set: the organization has no TERRAFORM global variable NO_SUCH_GLOBAL\./,
      );
      assert.match(await bench.logOf(steps[1]?.attributes.output), /other step sees=not imported,not imported,nothing/);
    });
  });
}

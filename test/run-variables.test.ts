/**
 * A run's variables: which layer wins a key, what counts as a secret, what stops a run, and that
 * Terraform (the binary test/terraform-binary.ts chooses) reads the written file with HCL values
 * kept HCL and strings kept strings.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { assembleVariables, hclString, terraformVariablesFile, type RunVariable } from '../src/runs/run-variables.ts';
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
  it('lets the workspace win over its collections, a higher priority over a lower, and collections over global variables', async () => {
    const assembled = await assembleVariables({
      globals: [plain('region', 'global'), env('AWS_PROFILE', 'global'), plain('only_global', 'g')],
      collections: [
        { name: 'high', priority: 10, items: [plain('region', 'high'), env('AWS_PROFILE', 'high')] },
        { name: 'low', priority: 1, items: [plain('region', 'low'), plain('size', 'low'), env('AWS_PROFILE', 'low')] },
      ],
      workspace: [env('AWS_PROFILE', 'workspace'), plain('size', 'workspace')],
    });
    assert.deepEqual(assembled.problems, []);
    assert.deepEqual(assembled.environment, { AWS_PROFILE: 'workspace' });
    assert.equal(assembled.terraformFile, 'region = "high"\nonly_global = "g"\nsize = "workspace"\n');
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

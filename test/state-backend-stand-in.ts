/** The Terraform stand-in run in a project of its own, against whatever http backend its environment names. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const standIn = path.join(path.dirname(fileURLToPath(import.meta.url)), 'stand-in', 'terraform');

const mainTf = `terraform {
  backend "http" {}
}

variable "name" {
  type = string
}

resource "null_resource" "greeting" {
  triggers = {
    name = var.name
  }
}

output "greeting" {
  value = "hello \${var.name}"
}
`;

/** A new folder holding a configuration with the http backend, a null resource and an output. */
export function standInProject(): string {
  const directory = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'state-backend-'));
  fs.writeFileSync(path.join(directory, 'main.tf'), mainTf);
  return directory;
}

/** Runs the stand-in (or the binary STRATUM_TEST_TERRAFORM names) in `directory` with a controlled environment. */
export function runStandIn(
  directory: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const binary = process.env.STRATUM_TEST_TERRAFORM ?? standIn;
  const cliConfig = process.env.STRATUM_TEST_TERRAFORM_CLI_CONFIG;
  const child = spawn(binary, args, {
    cwd: directory,
    env: {
      PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: directory,
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      ...(cliConfig === undefined ? {} : { TF_CLI_CONFIG_FILE: cliConfig }),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, ...output })));
}

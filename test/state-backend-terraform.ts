/** Terraform (the binary test/terraform-binary.ts chooses) run in a project of its own, against whatever http backend its environment names. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { binary, toolEnvironment } from './terraform-binary.ts';

const mainTf = `terraform {
  backend "http" {}
}

variable "name" {
  type = string
}

resource "terraform_data" "greeting" {
  input = var.name
}

output "greeting" {
  value = "hello \${terraform_data.greeting.output}"
}
`;

/** A new folder holding a configuration with the http backend, a terraform_data resource and an output. */
export function terraformProject(): string {
  const directory = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'state-backend-'));
  fs.writeFileSync(path.join(directory, 'main.tf'), mainTf);
  return directory;
}

/** Runs the binary in `directory` with a controlled environment. */
export function runTerraform(
  directory: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(binary, args, { cwd: directory, env: { ...toolEnvironment(directory), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, ...output })));
}

/**
 * How a run's step process is watched and stopped, and what of its output is kept: real processes
 * (the shell, and the Terraform binary test/terraform-binary.ts chooses, against a recording state
 * backend), no imitation of either.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { StepOutput } from '../src/runs/step-output.ts';
import { runStepProcess, type StepProcess } from '../src/runs/step-process.ts';
import { StateBackendRecorder, terraformEnvironment } from './state-backend-recorder.ts';
import { binary, binaryName } from './terraform-binary.ts';

const scratch = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'step-process-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const shellEnv = { PATH: '/usr/bin:/bin' };

function shell(script: string, options: Partial<StepProcess> = {}): StepProcess {
  return {
    command: '/bin/sh',
    args: ['-c', script],
    cwd: scratch,
    env: shellEnv,
    output: new StepOutput(10_000, []),
    timeoutMs: 30_000,
    graceMs: 2_000,
    ...options,
  };
}

/** Whether a process still runs: a killed one whose new parent has not reaped it yet counts as gone. */
const alive = (pid: number) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX] /.test(stat);
  } catch {
    return false;
  }
};

describe('step output', () => {
  it('redacts a secret however the text is split, in every form a tool prints it, before a listener sees it', () => {
    const secret = 'hunter2-"quoted"';
    const output = new StepOutput(10_000, [secret, 'line one of a key\nline two of a key']);
    const streamed: string[] = [];
    output.on('text', (text) => streamed.push(text));
    const text = `password=${secret}; json={"v":${JSON.stringify(secret)}}; multi: line two of a key\n`;
    // One character at a time: every split point of every secret.
    for (const character of text) output.write(character);
    output.end();
    assert.equal(output.text(), 'password=***; json={"v":"***"}; multi: ***\n');
    assert.equal(streamed.join(''), output.text());
    assert.ok(!streamed.some((part) => part.includes('hunter2')));
  });

  it('redacts a secret in hex and in base64, on its own or inside a longer encoded text, in either alphabet', () => {
    const secret = 'state-credential-7f3a9c?>';
    const output = new StepOutput(10_000, [secret]);
    const encodings = [
      Buffer.from(secret).toString('hex'),
      Buffer.from(secret).toString('hex').toUpperCase(),
      Buffer.from(`${secret}\n`).toString('base64'),
      Buffer.from(`stratum:${secret}`).toString('base64'),
      Buffer.from(`ab${secret}`).toString('base64url'),
    ];
    output.write(encodings.map((encoded) => `[${encoded}]`).join('\n'));
    output.end();
    const text = output.text();
    for (const encoded of encodings) assert.ok(!text.includes(encoded), `${encoded} shows in ${text}`);
    // What is left of each can no longer be decoded back to the secret.
    for (const line of text.split('\n')) {
      const kept = line.replace(/^\[|\]$/g, '').replaceAll('***', '');
      assert.ok(!Buffer.from(kept, 'base64').toString('utf8').includes('credential'), line);
    }
  });

  it('holds back only what could begin a secret, and releases it at the end', () => {
    const output = new StepOutput(10_000, ['abcdef']);
    output.write('x abc');
    assert.equal(output.text(), 'x ');
    output.write('d');
    assert.equal(output.text(), 'x ');
    output.write('x');
    assert.equal(output.text(), 'x abcdx');
    output.write(' abcde');
    output.end();
    assert.equal(output.text(), 'x abcdx abcde');
  });

  it('keeps the newest part within its limit, saying how much was trimmed', () => {
    const output = new StepOutput(10, []);
    output.write('0123456789');
    output.write('abcde');
    output.end();
    assert.equal(output.text(), '[5 earlier characters of this output were trimmed]\n56789abcde');
  });
});

describe('step process', () => {
  it('keeps stdout and stderr with the exit code, and passes only the given environment', async () => {
    process.env.STRATUM_STEP_PROCESS_PROBE = 'leaked';
    const step = shell('echo out; echo err >&2; echo "probe=${STRATUM_STEP_PROCESS_PROBE:-none} given=$GIVEN"; exit 3', {
      env: { ...shellEnv, GIVEN: 'yes' },
    });
    const end = await runStepProcess(step);
    step.output.end();
    assert.deepEqual(end, { kind: 'exited', code: 3 });
    const text = step.output.text();
    for (const line of ['out', 'err', 'probe=none given=yes']) assert.ok(text.includes(`${line}\n`), text);
  });

  it('says a command that cannot start was not started', async () => {
    const end = await runStepProcess({ ...shell(''), command: path.join(scratch, 'no-such-binary') });
    assert.equal(end.kind, 'not started');
  });

  it('interrupts a cancelled process, which may finish its work', async () => {
    const cancel = new AbortController();
    const step = shell('trap \'echo "interrupted, saving"; exit 130\' INT; echo started; while true; do sleep 0.1; done', {
      cancel: cancel.signal,
    });
    step.output.on('text', (text) => {
      if (text.includes('started')) cancel.abort();
    });
    const end = await runStepProcess(step);
    step.output.end();
    assert.deepEqual(end, { kind: 'interrupted', code: 130, signal: null });
    assert.match(step.output.text(), /interrupted, saving/);
  });

  it('kills a process that ignores interrupts once its grace runs out, and one that runs out of time', async () => {
    const started = Date.now();
    const step = shell("trap '' INT; echo ignoring; while true; do sleep 0.1; done", { timeoutMs: 300, graceMs: 200 });
    const end = await runStepProcess(step);
    assert.deepEqual(end, { kind: 'timed out', code: null, signal: 'SIGKILL' });
    // Out of time at 300 ms, interrupted twice, killed at 700 ms.
    assert.ok(Date.now() - started >= 650);
  });

  it('leaves nothing of a step running after it ends', async () => {
    const marker = path.join(scratch, 'background.pid');
    const end = await runStepProcess(shell(`sleep 60 >/dev/null 2>&1 & echo $! > ${marker}; exit 0`));
    assert.deepEqual(end, { kind: 'exited', code: 0 });
    const pid = Number(fs.readFileSync(marker, 'utf8').trim());
    for (let tries = 0; tries < 50 && alive(pid); tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(alive(pid), false, 'the background process outlived its step');
  });

  it(
    `stops Terraform (${binaryName}) during an apply so that it writes its state and releases the lock`,
    { timeout: 120_000 },
    async () => {
      const directory = fs.mkdtempSync(path.join(scratch, 'terraform-'));
      fs.writeFileSync(
        path.join(directory, 'main.tf'),
        [
          'terraform {\n  backend "http" {}\n}',
          'resource "terraform_data" "quick" {}',
          'resource "terraform_data" "slow" {\n  depends_on = [terraform_data.quick]\n  provisioner "local-exec" {\n    command = "echo provisioning; sleep 30"\n  }\n}',
          '',
        ].join('\n'),
      );
      const recorder = new StateBackendRecorder('stratum', 's3cret-password');
      const url = await recorder.start();
      try {
        const env = terraformEnvironment(directory, url, recorder);
        const run = (args: string[], cancel?: AbortSignal) => {
          const output = new StepOutput(100_000, [recorder.password]);
          return {
            output,
            end: runStepProcess({ command: binary, args, cwd: directory, env, output, timeoutMs: 90_000, graceMs: 20_000, cancel }),
          };
        };
        const init = run(['init', '-input=false', '-no-color']);
        assert.deepEqual(await init.end, { kind: 'exited', code: 0 }, init.output.text());

        const cancel = new AbortController();
        const apply = run(['apply', '-auto-approve', '-input=false', '-no-color'], cancel.signal);
        apply.output.on('text', () => {
          if (apply.output.text().includes('provisioning')) cancel.abort();
        });
        const end = await apply.end;
        apply.output.end();
        assert.deepEqual(end, { kind: 'interrupted', code: 1, signal: null }, apply.output.text());
        assert.match(apply.output.text(), /Interrupt received/);
        assert.ok(!apply.output.text().includes(recorder.password));
        // The state of what finished was written, and the lock released.
        assert.equal(recorder.lock, undefined);
        const state = JSON.parse(recorder.state ?? '{}') as { resources?: { name: string }[] };
        assert.ok(state.resources?.some((resource) => resource.name === 'quick'));
      } finally {
        await recorder.stop();
      }
    },
  );
});

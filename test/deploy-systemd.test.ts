import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { settingNames } from '../src/setting-names.ts';

/**
 * deploy/systemd/: the unit passes `systemd-analyze verify` without a word (it exits 0 even on an
 * unknown key, so its output is what counts), scores as well hardened by `systemd-analyze security`,
 * and its environment file example names only settings Stratum knows.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const folder = path.join(root, 'deploy', 'systemd');
const unit = fs.readFileSync(path.join(folder, 'stratum.service'), 'utf8');
const analyze = process.env.STRATUM_TEST_SYSTEMD_ANALYZE ?? 'systemd-analyze';
const skip =
  spawnSync(analyze, ['--version'], { encoding: 'utf8' }).error === undefined
    ? false
    : `${analyze} is not installed (it comes with systemd): the unit is not verified`;

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-systemd-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Runs systemd-analyze on a copy of the unit; verify checks that ExecStart's program exists, so it names this node. */
function analyzeUnit(command: string[], text: string = unit): { status: number | null; output: string } {
  const file = path.join(scratch, 'stratum.service');
  fs.writeFileSync(file, text.replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `));
  const result = spawnSync(analyze, [...command, file], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

describe('the systemd unit', { skip }, () => {
  it('passes systemd-analyze verify without a warning, which a mistyped setting would draw', () => {
    assert.deepEqual(analyzeUnit(['verify']), { status: 0, output: '' });
    const mistyped = analyzeUnit(['verify'], unit.replace('ProtectSystem=strict', 'ProtectSystem=strictly'));
    assert.match(mistyped.output, /protect system/i);
  });

  it('runs as a dynamic user with its data in a state directory, a read-only system and no privileges to gain', () => {
    for (const line of [
      'DynamicUser=yes',
      'StateDirectory=stratum',
      'StateDirectoryMode=0700',
      'Environment=STRATUM_DATA_DIR=%S/stratum',
      'ProtectSystem=strict',
      'NoNewPrivileges=yes',
      'CapabilityBoundingSet=',
      'KillSignal=SIGTERM',
    ]) {
      assert.ok(unit.split('\n').includes(line), line);
    }
    // V8 needs writable, executable memory for its compiled code.
    assert.doesNotMatch(unit, /^MemoryDenyWriteExecute=yes/m);
    const stopSeconds = Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1]);
    assert.ok(stopSeconds > 10, 'systemd waits longer than the shutdown timeout before SIGKILL');
  });

  it('scores as well hardened (exposure below 2 of 10) by systemd-analyze security', () => {
    const { output } = analyzeUnit(['security', '--offline=yes', '--no-pager']);
    const exposure = Number(/Overall exposure level for stratum\.service: ([\d.]+)/.exec(output)?.[1]);
    assert.ok(exposure < 2, `exposure ${exposure}`);
  });
});

describe('the environment file example', () => {
  it('names only settings Stratum knows', () => {
    const example = fs.readFileSync(path.join(folder, 'stratum.env.example'), 'utf8');
    const names = [...example.matchAll(/^#?(STRATUM_[A-Z0-9_]+)=/gm)].map((m) => m[1] ?? '');
    assert.ok(names.length > 0);
    for (const name of names) assert.ok(settingNames.includes(name), name);
  });
});

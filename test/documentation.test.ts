import assert from 'node:assert/strict';
import fs from 'node:fs';
import { it } from 'node:test';
import { registry } from '../src/resources/index.ts';
import { settingNames } from '../src/setting-names.ts';

const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const behaviour = fs.readFileSync(new URL('../docs/behaviour.md', import.meta.url), 'utf8');

it('every setting the service knows is in the README, and the configuration table names no other', () => {
  const tabled = [...readme.matchAll(/^\| `(STRATUM_[A-Z_]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual(
    tabled.filter((name) => name !== undefined && !settingNames.includes(name)),
    [],
    'the table names settings that unknown-setting warnings would call misspelt',
  );
  assert.deepEqual(
    settingNames.filter((name) => !readme.includes(`\`${name}\``)),
    [],
    'settings the README does not describe',
  );
});

it('docs/behaviour.md has a row for every record type the service declares', () => {
  const rows = [...behaviour.matchAll(/^\| ([a-z_]+)[ |(]/gm)].map((m) => m[1]);
  assert.deepEqual(
    [...registry.all()].map((resource) => resource.type).filter((type) => !rows.includes(type)),
    [],
    'record types docs/behaviour.md does not describe',
  );
});

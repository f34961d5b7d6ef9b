/**
 * What a checkout holds and installs: the files an operator makes in it by following the docs
 * (secrets, backups) are ignored by git, and every package the lockfile installs accepts the
 * running Node, so `npm ci` warns of no engine.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
const inGit = git('rev-parse', '--is-inside-work-tree').stdout.trim() === 'true';

type Version = [number, number, number];

/** A version as a range writes it, `x`, `*` or a missing part standing for any. */
function parts(text: string): (number | undefined)[] {
  const match = /^v?(\d+|[x*])(?:\.(\d+|[x*]))?(?:\.(\d+|[x*]))?$/.exec(text);
  if (match === null) throw new Error(`not a version: ${text}`);
  return [match[1], match[2], match[3]].map((part) => (part === undefined || part === 'x' || part === '*' ? undefined : Number(part)));
}

const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` satisfies one comparator of an engines range, npm's way for release versions. */
function satisfiesComparator(version: Version, comparator: string): boolean {
  const [, operator = '', operand = ''] = /^(>=|<=|>|<|=|\^|~)?\s*(.*)$/.exec(comparator) ?? [];
  if (operand === '*' || operand === '') return true;
  const given = parts(operand);
  const low: Version = [given[0] ?? 0, given[1] ?? 0, given[2] ?? 0];
  // The first version past what a partial version covers: 20 covers 20.*.*, 20.1 covers 20.1.*.
  const fixed = given.findIndex((part) => part === undefined);
  const pastPartial = (): Version =>
    fixed === 0
      ? [Infinity, 0, 0]
      : fixed === 1
        ? [low[0] + 1, 0, 0]
        : fixed === 2
          ? [low[0], low[1] + 1, 0]
          : [low[0], low[1], low[2] + 1];
  switch (operator) {
    case '>=':
      return compare(version, low) >= 0;
    case '>':
      return compare(version, pastPartial()) >= 0;
    case '<':
      return compare(version, low) < 0;
    case '<=':
      return compare(version, pastPartial()) < 0;
    case '^': {
      const high: Version = low[0] > 0 ? [low[0] + 1, 0, 0] : low[1] > 0 ? [0, low[1] + 1, 0] : pastPartial();
      return compare(version, low) >= 0 && compare(version, high) < 0;
    }
    case '~':
      return compare(version, low) >= 0 && compare(version, given[1] === undefined ? [low[0] + 1, 0, 0] : [low[0], low[1] + 1, 0]) < 0;
    default:
      return compare(version, low) >= 0 && compare(version, pastPartial()) < 0;
  }
}

function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((set) =>
    // `>= 18` is one comparator: an operator's space is closed up before the set is split.
    set
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .every((comparator) => satisfiesComparator(version, comparator)),
  );
}

describe('repository files', () => {
  it(
    'ignores the files the docs have an operator make in a checkout: the compose .env, secrets and backups',
    { skip: !inGit && 'not a git checkout' },
    () => {
      const made = [
        'deploy/compose/.env',
        'deploy/kubernetes/overlays/postgres/secrets.env',
        'backups/stratum-2025-01-15.db',
        'stratum-2025-01-15.dump',
        'stratum-2025-01-15.db',
        'data/encryption.key',
      ];
      const ignored = git('check-ignore', '--no-index', ...made)
        .stdout.split('\n')
        .filter(Boolean);
      assert.deepEqual(ignored, made);
      // What the operator copies them from stays tracked.
      for (const example of ['deploy/compose/.env.example', 'deploy/kubernetes/overlays/postgres/secrets.env.example'])
        assert.equal(git('check-ignore', '--no-index', '-q', example).status, 1, `${example} is ignored`);
    },
  );

  it('installs no package whose engines exclude the running Node, as npm ci would warn (EBADENGINE)', () => {
    const node = parts(process.versions.node) as Version;
    const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    };
    const refused = Object.entries(lock.packages).flatMap(([name, { version = '', engines }]) => {
      // An array is npm's old form of engines, which npm no longer reads.
      const wanted = Array.isArray(engines) ? undefined : engines?.node;
      return wanted === undefined || satisfies(node, wanted) ? [] : [`${name}@${version} wants node ${wanted}`];
    });
    assert.deepEqual(refused, [], `Node ${process.versions.node}`);
  });

  it('reads engines ranges as npm does, so the check above can fail', () => {
    const v = (text: string) => parts(text) as Version;
    assert.equal(satisfies(v('20.20.2'), '>=22'), false);
    assert.equal(satisfies(v('20.20.2'), '>= 18'), true);
    assert.equal(satisfies(v('20.20.2'), '>=22.12.0 || >=20.19.0 <21.0.0'), true);
    assert.equal(satisfies(v('20.18.0'), '>=22.12.0 || >=20.19.0 <21.0.0'), false);
    assert.equal(satisfies(v('20.20.2'), '^18.18.0 || ^20.9.0 || >=21.1.0'), true);
    assert.equal(satisfies(v('20.20.2'), '20.x || 22.x'), true);
    assert.equal(satisfies(v('21.0.0'), '20 || >=22'), false);
    assert.equal(satisfies(v('20.20.2'), '10.* || >= 12.*'), true);
    assert.equal(satisfies(v('20.20.2'), '>=16 || 14 >=14.17'), true);
    assert.equal(satisfies(v('20.20.2'), '^16 || ^18'), false);
    assert.equal(satisfies(v('20.20.2'), '*'), true);
  });
});

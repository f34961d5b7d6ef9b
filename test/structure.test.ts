import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { registry } from '../src/resources/index.ts';
import { runStatuses } from '../src/runs/job-statuses.ts';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');

/**
 * Where a resource may be named: its declarations, and the released migrations that built its
 * tables (the schema test holds those to the declarations). One more string equals a type's name
 * without naming it: the kind of a team API token, stored in api_token.kind and inside every team
 * token already issued.
 */
const mayName = (file: string) => file.startsWith('resources/') || file.startsWith('store/migrations/');
const otherMeanings: Record<string, string[]> = {
  'auth/tokens.ts': ['team'],
  // A notification's kind of event, as Terrakube's messages name it: a job's status, or a test.
  'http/routes/notification-routes.ts': ['job'],
  'notifications/messages.ts': ['job'],
  'notifications/job-notifications.ts': ['job'],
  // The unit of work appends the change rows the audit trail's declarations only read; `action` is
  // the change row's column that says what happened to a record (create, update, ...).
  'engine/unit-of-work.ts': ['record_change', 'action'],
  // The layer a run's variable came from, as the effective variables name it: the workspace's own, or a collection's item.
  'runs/run-variables.ts': ['workspace', 'collection'],
  'runs/variable-layers.ts': ['collection'],
  'http/routes/effective-variables-route.ts': ['workspace', 'collection'],
  // The command that runs an agent, as its operator types it.
  'commands/program.ts': ['agent'],
};

function sourceFiles(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function stringLiterals(file: string): { text: string; line: number }[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: { text: string; line: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      found.push({ text: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The project files a file imports, type-only imports and re-exports included (the lint rule skips type-only ones). */
function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  for (const statement of source.statements) {
    const specifier =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier !== undefined
        ? statement.moduleSpecifier
        : undefined;
    if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    found.push(path.resolve(path.dirname(file), specifier.text.replace(/\.js$/, '.ts')));
  }
  return found;
}

/** Every loop of imports among the files, each as the files it passes through (Tarjan's strongly connected components). */
function importCycles(files: readonly string[]): string[][] {
  const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => files.includes(target))]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (stack.includes(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = member === file ? undefined : stack.pop()) component.push(member);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.map((f) => path.relative(src, f)).sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return cycles;
}

describe('structure', () => {
  it('has no import cycle in src/, type-only imports counted', () => {
    assert.deepEqual(importCycles(sourceFiles(src)), []);
  });

  it('finds an import cycle through a type-only import, so the check above can fail', () => {
    const folder = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'structure-'));
    fs.writeFileSync(path.join(folder, 'a.ts'), "import type { B } from './b.js';\nexport type A = B[];\n");
    fs.writeFileSync(path.join(folder, 'b.ts'), "import { c } from './c.js';\nexport type B = typeof c;\n");
    fs.writeFileSync(path.join(folder, 'c.ts'), "export type { A } from './a.js';\nexport const c = 1;\n");
    const files = ['a.ts', 'b.ts', 'c.ts'].map((name) => path.join(folder, name));
    assert.equal(importCycles(files).length, 1);
    fs.rmSync(folder, { recursive: true });
  });

  it('names resources only in src/resources: generic code reads them from the registry', () => {
    const names = new Set([...registry.all()].flatMap((resource) => [resource.type, resource.table]));
    const offences: string[] = [];
    for (const file of sourceFiles(src)) {
      const relative = path.relative(src, file).split(path.sep).join('/');
      if (mayName(relative)) continue;
      for (const { text, line } of stringLiterals(file)) {
        if (names.has(text) && !(otherMeanings[relative] ?? []).includes(text)) offences.push(`src/${relative}:${line} names '${text}'`);
      }
    }
    assert.deepEqual(offences, []);
  });

  it('names a job status only in the transition table: everything else says status.running', () => {
    // `unknown` is also the word for a value nobody knows (a lock's holder, a key's id): Stratum never sets it as a status.
    const statuses = new Set<string>(runStatuses.filter((name) => name !== 'unknown'));
    const offences: string[] = [];
    for (const file of sourceFiles(src)) {
      const relative = path.relative(src, file).split(path.sep).join('/');
      if (relative === 'runs/job-statuses.ts' || relative.startsWith('store/migrations/')) continue;
      for (const { text, line } of stringLiterals(file)) if (statuses.has(text)) offences.push(`src/${relative}:${line} names '${text}'`);
    }
    assert.deepEqual(offences, []);
  });

  it("writes rows only where the architecture says: the engine's units of work, and the named owners of their own tables", () => {
    /**
     * Every file that writes a table, and why it may: README, "Where writes happen". A file that
     * starts writing must be added here with its reason.
     */
    const writers: Record<string, string> = {
      'engine/unit-of-work.ts': 'the change and outbox rows of every unit of work',
      'engine/write.ts': "the record engine's creates, updates and deletes, in a unit of work",
      'engine/relationships.ts': "a record's links, in the write's unit of work",
      'engine/members.ts': "many-to-many members, in the write's unit of work",
      'engine/sequence.ts': "the next id of a sequence, in the create's transaction",
      'engine/counts.ts': 'a counted use (a download), one statement with its change',
      'engine/shaped-queries.ts': 'the one-statement create, its change row inside it',
      'engine/state.ts': 'state versions and locks, in a unit of work',
      'engine/kept-rows.ts': 'rows kept beside the records (locks, tokens, job flows), each recorded',
      'auth/api-tokens.ts': 'API tokens issued and revoked, recorded through the engine',
      'auth/signing-key.ts': 'the token-signing key of a PostgreSQL store, once, at start',
      'secrets/encryption-key.ts': 'the check that the encryption key opens what it sealed, once, at start',
      'secrets/rotation.ts': 'sealed values sealed again under a new key (`stratum rotate-encryption-key`), each recorded',
      'notifications/deliveries.ts': 'notification deliveries, each recorded as a kept change',
      'events/outbox-relay.ts': 'outbox rows claimed and removed once delivered',
      'store/retention.ts': 'change rows past their retention, pruned',
      'runs/job-queue.ts': "the Jobs service's hold of a workspace (workspace_run), in ServiceWork transactions",
      'runs/claim-queries.ts': "a claim's release of the holds of jobs a client ended while nobody ran them",
      'runs/job-recovery.ts': "the Jobs service's holds of stopped executors, released",
      'runs/run-store.ts': "a run's step logs and saved plans, the Jobs service's own tables",
      'runs/run-overview.ts': 'which executors are alive',
      'runs/schedule-fires.ts': "each schedule's next firing, taken by one process",
      'runs/agent-tokens.ts': 'agent tokens issued and revoked (recorded as kept rows), and when each was last used',
    };
    const found = sourceFiles(src)
      .map((file) => path.relative(src, file).split(path.sep).join('/'))
      .filter((relative) => !relative.startsWith('store/migrations/'))
      .filter((relative) => /insertInto|updateTable|deleteFrom/.test(fs.readFileSync(path.join(src, relative), 'utf8')));
    assert.deepEqual(found.sort(), Object.keys(writers).sort());
  });

  it('finds a resource name where one is written, so the check above can fail', () => {
    const probe = path.join(fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'structure-')), 'probe.ts');
    fs.writeFileSync(probe, "const tenant = 'organization';\nexport default tenant;\n");
    assert.deepEqual(stringLiterals(probe), [{ text: 'organization', line: 1 }]);
    fs.rmSync(path.dirname(probe), { recursive: true });
  });
});

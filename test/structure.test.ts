import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { registry } from '../src/resources/index.ts';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');

/**
 * Where a resource may be named: its declarations, and the released migrations that built its
 * tables (the schema test holds those to the declarations). One more string equals a type's name
 * without naming it: the kind of a team API token, stored in api_token.kind and inside every team
 * token already issued.
 */
const mayName = (file: string) => file.startsWith('resources/') || file.startsWith('store/migrations/');
const otherMeanings: Record<string, string[]> = { 'auth/tokens.ts': ['team'] };

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

describe('structure', () => {
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

  it('finds a resource name where one is written, so the check above can fail', () => {
    const probe = path.join(fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'structure-')), 'probe.ts');
    fs.writeFileSync(probe, "const tenant = 'organization';\nexport default tenant;\n");
    assert.deepEqual(stringLiterals(probe), [{ text: 'organization', line: 1 }]);
    fs.rmSync(path.dirname(probe), { recursive: true });
  });
});

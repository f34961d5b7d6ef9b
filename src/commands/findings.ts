import { packageVersion } from '../version.js';

/** One thing `stratum check` looked at: what it found, and what to do when that is a problem. */
export interface Finding {
  status: 'ok' | 'warn' | 'fail';
  subject: string;
  found: string;
  fix?: string;
}

/** The findings as `stratum check` prints them: one line each, its fix beside it, and a verdict. */
export function renderFindings(findings: readonly Finding[]): string {
  const width = Math.max(...findings.map((f) => f.subject.length));
  const label = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' } as const;
  const lines = [`stratum check (Stratum ${packageVersion()}), with the configuration in this environment:`];
  for (const finding of findings) {
    lines.push(`  ${label[finding.status]}  ${finding.subject.padEnd(width)}  ${finding.found}`);
    if (finding.fix !== undefined) lines.push(`  ${' '.repeat(4)}  ${' '.repeat(width)}  fix: ${finding.fix}`);
  }
  const failed = findings.filter((f) => f.status === 'fail').length;
  const warned = findings.filter((f) => f.status === 'warn').length;
  lines.push(
    '',
    failed === 0
      ? `No problem found${warned === 0 ? '.' : `; ${warned} warning(s) above.`}`
      : `${failed} problem(s) to fix, ${warned} warning(s).`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * Diagnostics as Terraform reports them: a summary and a detail, printed to stderr with the detail
 * wrapped as Terraform wraps it, and those tied to a place in the configuration after the others.
 */
import { ConfigurationError } from './configuration.ts';
import { Refusal } from './refusal.ts';

/** A failure Terraform reports as a diagnostic: a summary and its detail. */
export class Diagnostic extends Error {
  constructor(
    readonly summary: string,
    readonly detail: string,
    /** Whether Terraform ties it to a place in the configuration: it then prints it after those it does not. */
    readonly located = false,
  ) {
    super(`${summary}: ${detail}`);
  }
}

/** Diagnostics in the order Terraform prints them: those without a place in the configuration first. */
export function printOrder(diagnostics: Diagnostic[]): Diagnostic[] {
  return [...diagnostics.filter((diagnostic) => !diagnostic.located), ...diagnostics.filter((diagnostic) => diagnostic.located)];
}

/** Terraform's diagnostic: the summary, then the detail wrapped to lines shorter than 78 columns (indented lines kept as they are). */
export function report(error: unknown): void {
  if (error instanceof Diagnostic)
    process.stderr.write(`\nError: ${error.summary}\n\n${error.detail === '' ? '' : `${wrap(error.detail)}\n`}`);
  else if (error instanceof Refusal || error instanceof ConfigurationError) process.stderr.write(`\nError: ${error.message}\n\n`);
  else process.stderr.write(`\nError: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n\n`);
}

function wrap(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      if (/^\s/.test(line) || line.length < 78) return line;
      const lines: string[] = [];
      let current = '';
      for (const word of line.split(' ')) {
        if (current !== '' && current.length + 1 + word.length >= 78) {
          lines.push(current);
          current = word;
        } else current = current === '' ? word : `${current} ${word}`;
      }
      return [...lines, current].join('\n');
    })
    .join('\n');
}

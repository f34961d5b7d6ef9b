/**
 * Characters a terminal takes as commands or that reorder a line: control characters (an escape
 * sequence can move the cursor and erase the rows above) and bidirectional overrides. What a
 * token's creator wrote (its description, its group, its owner's subject) may hold them, from
 * before they were refused, or from an identity provider.
 */
const terminalCommands = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;
/** The same but C0 controls, which JSON escapes itself. */
const unescapedByJson = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** A table cell with each such character written as its code (`\x1b`, `\u{202e}`). */
export function escapeControls(text: string): string {
  return text.replace(terminalCommands, (character) => {
    const code = character.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

/** JSON with every such character as a JSON escape, so it prints safely and parses back to the same text. */
export function jsonForTerminal(value: unknown, indent: number | undefined = 2): string {
  const escape = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return JSON.stringify(value, null, indent).replace(unescapedByJson, escape);
}

/** Rows under a header, each column as wide as its widest cell, every cell's controls escaped. */
export function columns(header: readonly string[], cells: readonly (readonly string[])[]): string {
  const rows = cells.map((row) => row.map(escapeControls));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (texts: readonly string[]) =>
    texts
      .map((cell, i) => (i === texts.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

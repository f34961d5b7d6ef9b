import { EventEmitter } from 'node:events';

/** What stands where a secret was. */
export const redacted = '***';

/**
 * The forms in which a secret value can reach a step's output: as it is, escaped inside a JSON
 * string (`show -json` and `output -json` print values so), each longer line of a value that spans
 * lines (a tool prints such a value line by line, each behind its own prefix), its hex (either
 * case), and its base64 (standard and URL-safe) wherever it sits in a longer encoded text, as
 * `echo $SECRET | base64` or a Basic header prints it. Limits: a form shorter than 8 characters is
 * left (it would blank common text), and an encoding or transformation not listed here (gzip, a
 * reversed or interleaved copy, a secret cut into pieces printed apart) passes: redaction keeps an
 * honest tool's output clean, it does not stop code that means to leak a value it was given.
 */
function formsOf(secret: string): string[] {
  const forms = new Set<string>([secret, JSON.stringify(secret).slice(1, -1)]);
  for (const line of secret.split(/\r?\n/)) if (line.trim().length >= 8) forms.add(line);
  const bytes = Buffer.from(secret, 'utf8');
  for (const hex of [bytes.toString('hex'), bytes.toString('hex').toUpperCase()]) if (hex.length >= 8) forms.add(hex);
  for (const core of base64Cores(bytes)) forms.add(core);
  return [...forms].filter((form) => form !== '');
}

/**
 * The base64 characters that `bytes` alone decide, at each of the three places it can start in a
 * longer encoded text (a byte's bits spread over two characters, so its neighbours change the edges
 * but never the core), in both alphabets; cores under 8 characters are left out.
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const core = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    if (core.length < 8) continue;
    cores.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return cores;
}

const escapeForPattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A step's output as it is kept and streamed: every secret replaced by `***` before anything
 * leaves it, and only the newest `limit` characters kept, behind a note of how much was trimmed.
 * Text arrives in chunks that may split a secret anywhere, so the end of what has arrived is held
 * back while it could still be the start of one; `end` lets it go.
 *
 * Listeners of `text` receive the redacted text as it is released, in order, for live streams.
 */
export class StepOutput extends EventEmitter<{ text: [string]; end: [] }> {
  private readonly pattern: RegExp | undefined;
  private readonly forms: readonly string[];
  private readonly firstCharacters: ReadonlySet<string>;
  private readonly longest: number;
  private pending = '';
  private readonly kept: string[] = [];
  private keptLength = 0;
  private trimmedCharacters = 0;
  private ended = false;

  constructor(
    private readonly limit: number,
    private readonly secrets: readonly string[],
  ) {
    super();
    const forms = [...new Set(secrets.flatMap(formsOf))].sort((a, b) => b.length - a.length);
    this.pattern = forms.length === 0 ? undefined : new RegExp(forms.map(escapeForPattern).join('|'), 'g');
    this.longest = forms[0]?.length ?? 0;
    this.forms = forms;
    this.firstCharacters = new Set(forms.map((form) => form.charAt(0)));
  }

  /** Another output that redacts the same secrets, for what a step reads of a tool rather than shows. */
  alike(limit: number): StepOutput {
    return new StepOutput(limit, this.secrets);
  }

  /** Adds text; what can no longer be part of a secret is released. */
  write(text: string): void {
    if (this.ended || text === '') return;
    this.pending = this.redact(this.pending + text);
    const held = this.heldFrom(this.pending);
    this.release(this.pending.slice(0, held));
    this.pending = this.pending.slice(held);
  }

  /** Releases what was held back: no more text comes. */
  end(): void {
    if (this.ended) return;
    this.release(this.pending);
    this.pending = '';
    this.ended = true;
    this.emit('end');
  }

  get finished(): boolean {
    return this.ended;
  }

  /** What is kept, and how many characters before it were trimmed: what the store holds of a step's log. */
  snapshot(): { text: string; trimmed: number } {
    return { text: this.kept.join(''), trimmed: this.trimmedCharacters };
  }

  /** The output as it is kept: the newest part, with a first line saying how much came before it. */
  text(): string {
    return withTrimNote(this.snapshot());
  }

  private redact(text: string): string {
    return this.pattern === undefined ? text : text.replace(this.pattern, redacted);
  }

  /** Where the held-back end starts: the earliest point from which the rest could begin a secret. */
  private heldFrom(text: string): number {
    for (let start = Math.max(0, text.length - this.longest + 1); start < text.length; start++) {
      if (!this.firstCharacters.has(text.charAt(start))) continue;
      const rest = text.slice(start);
      if (this.forms.some((form) => form.length > rest.length && form.startsWith(rest))) return start;
    }
    return text.length;
  }

  private release(text: string): void {
    if (text === '') return;
    this.kept.push(text);
    this.keptLength += text.length;
    this.trim();
    this.emit('text', text);
  }

  private trim(): void {
    while (this.keptLength > this.limit && this.kept.length > 0) {
      const first = this.kept[0] ?? '';
      const excess = this.keptLength - this.limit;
      if (first.length <= excess) {
        this.kept.shift();
        this.keptLength -= first.length;
        this.trimmedCharacters += first.length;
      } else {
        this.kept[0] = first.slice(excess);
        this.keptLength -= excess;
        this.trimmedCharacters += excess;
      }
    }
  }
}

/** A kept log as it is read: behind a first line saying how much came before it, when anything was trimmed. */
export function withTrimNote({ text, trimmed }: { text: string; trimmed: number }): string {
  return trimmed === 0 ? text : `[${trimmed} earlier characters of this output were trimmed]\n${text}`;
}

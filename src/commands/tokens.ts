import os from 'node:os';
import type { Caller } from '../auth/caller.js';
import type { TokenRecord } from '../auth/token-views.js';
import { loadConfig, type Config } from '../config.js';
import { ApiError } from '../errors.js';
import { Engine, type Session } from '../engine/index.js';
import { registry, tokenPolicies, recordPolicies } from '../resources/index.js';
import type { Store } from '../store/database.js';
import { openConsoleStore, requireMigrated } from './console-store.js';
import { CommandFailure } from './exit-codes.js';

/**
 * The console's administrator: whoever may run commands with the server's configuration may
 * already mint an administrator token, so the console acts as one. Audit columns name the OS user.
 */
export function consoleAdministrator(config: Config): Caller {
  const subject = `console:${os.userInfo().username}`;
  return {
    subject,
    email: undefined,
    name: subject,
    groups: [config.adminGroup],
    isAdministrator: true,
    token: { kind: 'console', trackedId: undefined, expiresAt: undefined },
  };
}

/**
 * The console's session with the engine, for token administration: it writes no records and
 * issues no tokens, so it needs neither the encryption key nor the signing key.
 */
function consoleSession(config: Config, store: Store): Session {
  const engine = new Engine({
    registry,
    recordPolicies,
    tokenPolicies,
    apiTokens: undefined,
    store,
    cipher: undefined,
    responseMemory: config.responseMemory,
  });
  return engine.open(consoleAdministrator(config), { transport: 'console' });
}

/** `stratum tokens list`: every team and personal token, read beside a running server. */
export async function listTokens(options: { all?: boolean; json?: boolean }): Promise<void> {
  const config = loadConfig();
  const store = await openConsoleStore(config, 'readonly');
  try {
    await requireMigrated(store, config, false);
    const records = await consoleSession(config, store).listEveryToken(options.all === true);
    process.stdout.write(options.json === true ? `${jsonForTerminal(records)}\n` : table(records, options.all === true));
  } finally {
    await store.close();
  }
}

/**
 * `stratum tokens revoke ID`: revokes a token and its descendants in one transaction beside a
 * running server (SQLite's own locks order it with the server's writes). Servers notice within
 * the half second they trust a live check.
 */
export async function revokeToken(id: string): Promise<void> {
  const config = loadConfig();
  const store = await openConsoleStore(config, 'shared');
  try {
    await requireMigrated(store, config, false);
    const revoked = await consoleSession(config, store).revokeAnyToken(id.trim());
    process.stdout.write(
      revoked.length === 0
        ? `${id} was already revoked, with every token created from it\n`
        : `revoked ${revoked.length} token(s): ${revoked.join(', ')}\n`,
    );
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      throw new CommandFailure(`there is no API token ${id} in this store: \`stratum tokens list --all\` shows every one`);
    }
    throw error;
  } finally {
    await store.close();
  }
}

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
function escapeControls(text: string): string {
  return text.replace(terminalCommands, (character) => {
    const code = character.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

/** JSON with every such character as a JSON escape, so it prints safely and parses back to the same text. */
function jsonForTerminal(records: readonly TokenRecord[]): string {
  const escape = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return JSON.stringify(records, null, 2).replace(unescapedByJson, escape);
}

function table(records: readonly TokenRecord[], all: boolean): string {
  if (records.length === 0)
    return all ? 'no team or personal tokens\n' : 'no live team or personal tokens (--all shows revoked and expired ones)\n';
  const now = new Date().toISOString();
  const rows = records
    .map((r) => [
      r.id,
      r.kind,
      r.group ?? r.owner,
      r.revokedAt !== null ? 'revoked' : r.expiresAt !== null && r.expiresAt <= now ? 'expired' : 'live',
      r.expiresAt ?? 'never',
      r.lastUsedAt ?? 'never',
      r.description.replace(/\s+/g, ' ').slice(0, 40),
    ])
    .map((row) => row.map(escapeControls));
  const header = ['ID', 'KIND', 'GROUP/OWNER', 'STATE', 'EXPIRES', 'LAST USED', 'DESCRIPTION'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

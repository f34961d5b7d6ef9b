import type { TokenRecord } from '../auth/token-views.js';
import { loadConfig } from '../config.js';
import { ApiError } from '../errors.js';
import { consoleSession } from './console-session.js';
import { openConsoleStore, requireMigrated } from './console-store.js';
import { CommandFailure } from './exit-codes.js';
import { columns, jsonForTerminal } from './terminal-text.js';

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

function table(records: readonly TokenRecord[], all: boolean): string {
  if (records.length === 0)
    return all ? 'no team or personal tokens\n' : 'no live team or personal tokens (--all shows revoked and expired ones)\n';
  const now = new Date().toISOString();
  const rows = records.map((r) => [
    r.id,
    r.kind,
    r.group ?? r.owner,
    r.revokedAt !== null ? 'revoked' : r.expiresAt !== null && r.expiresAt <= now ? 'expired' : 'live',
    r.expiresAt ?? 'never',
    r.lastUsedAt ?? 'never',
    r.description.replace(/\s+/g, ' ').slice(0, 40),
  ]);
  return columns(['ID', 'KIND', 'GROUP/OWNER', 'STATE', 'EXPIRES', 'LAST USED', 'DESCRIPTION'], rows);
}

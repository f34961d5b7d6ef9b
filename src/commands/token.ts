import fs from 'node:fs';
import { embeddedSigningKey, signingKeyFile } from '../auth/signing-key.js';
import { TokenSigner } from '../auth/tokens.js';
import { loadConfig, type Config } from '../config.js';
import { signingKeyFor } from '../keys.js';
import { openSecretCipher } from '../secrets/encryption-key.js';
import type { Store } from '../store/database.js';
import { missingStore, openConsoleStore, requireDataFolder, requireMigrated } from './console-store.js';
import { CommandFailure, ExitCode } from './exit-codes.js';

/** Parses a lifetime like 30d, 12h, 90m, 3600s or 1d12h into seconds. */
export function parseDuration(text: string): number {
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };
  if (!/^(\d+[smhd])+$/.test(text)) throw new Error(`--ttl must look like 30d, 12h, 90m or 1d12h, got "${text}"`);
  let seconds = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)([smhd])/g)) seconds += Number(amount) * (units[unit ?? 's'] ?? 1);
  if (seconds <= 0) throw new Error('--ttl must be longer than zero');
  return seconds;
}

/** `stratum token`: prints a token signed with the server's key, alone on the last line. */
export async function mintToken(options: { subject?: string; groups: string; ttl: string; init?: boolean }): Promise<void> {
  // Checked here rather than by the parser, which would report it before a misspelt option.
  const subject = options.subject?.trim() ?? '';
  if (subject === '')
    throw new CommandFailure('--subject is required: who the token speaks for, e.g. --subject you@example.com', ExitCode.usage);
  const groups = options.groups
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '');
  let ttlSeconds: number;
  try {
    ttlSeconds = parseDuration(options.ttl);
  } catch (error) {
    throw new CommandFailure(error instanceof Error ? error.message : String(error), ExitCode.usage);
  }
  const config = loadConfig();
  const init = options.init === true;
  // The embedded store's key is a file, read without opening the database a running server holds;
  // PostgreSQL's is sealed in the database, and opens with the encryption key.
  let store: Store | undefined;
  if (config.databaseUrl === undefined) requireSigningKeyFile(config, init);
  else if (config.tokenKey === undefined) {
    store = await openConsoleStore(config, 'shared');
  }
  try {
    if (store !== undefined) await requireMigrated(store, config, init);
    const database = store === undefined ? undefined : { store, cipher: await openSecretCipher(config, store) };
    const key = config.databaseUrl === undefined ? embeddedSigningKey(config) : await signingKeyFor(config, database);
    const signer = new TokenSigner(key, config.adminGroup);
    const { token } = await signer.sign({ subject, ...(subject.includes('@') ? { email: subject } : {}), groups, ttlSeconds });
    process.stdout.write(`${token}\n`);
  } finally {
    await store?.close();
  }
}

/** Without STRATUM_TOKEN_KEY, the embedded key file must be there already, unless `init` creates it. */
function requireSigningKeyFile(config: Config, init: boolean): void {
  if (config.tokenKey !== undefined) return;
  requireDataFolder(config, init);
  if (init || fs.existsSync(signingKeyFile(config))) return;
  throw missingStore(
    config,
    `the data folder ${config.dataDir} holds no token.key, the key a server started there without STRATUM_TOKEN_KEY signs with (set STRATUM_TOKEN_KEY if the server has it)`,
  );
}

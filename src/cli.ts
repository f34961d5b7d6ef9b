#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { TokenSigner } from './auth/tokens.js';
import { loadConfig } from './config.js';
import { signingKeyFor } from './keys.js';
import { openStore, type Store } from './store/database.js';

const usage = `usage: stratum token --subject EMAIL --groups G1,G2 [--ttl DURATION]

  Mints a bearer token signed with the server's key (STRATUM_TOKEN_KEY, else the key kept in
  STRATUM_DATA_DIR or in the DATABASE_URL database). Prints the token alone on the last line.

  --subject   who the token speaks for; an email address is also used as the email claim
  --groups    comma-separated directory groups, e.g. STRATUM_ADMIN for an administrator
  --ttl       lifetime: a number and a unit, s, m, h or d, combinable (90m, 1d12h); default 30d`;

/** Parses a lifetime like 30d, 12h, 90m, 3600s or 1d12h into seconds. */
export function parseDuration(text: string): number {
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };
  if (!/^(\d+[smhd])+$/.test(text)) throw new Error(`--ttl must look like 30d, 12h, 90m or 1d12h, got "${text}"`);
  let seconds = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)([smhd])/g)) seconds += Number(amount) * (units[unit ?? 's'] ?? 1);
  if (seconds <= 0) throw new Error('--ttl must be longer than zero');
  return seconds;
}

async function mintToken(args: string[]): Promise<string> {
  const { values } = parseArgs({
    args,
    options: { subject: { type: 'string' }, groups: { type: 'string' }, ttl: { type: 'string', default: '30d' } },
    strict: true,
  });
  if (values.subject === undefined || values.subject.trim() === '') throw new Error('--subject is required');
  const groups = (values.groups ?? '').split(',').map((g) => g.trim()).filter((g) => g !== '');
  const ttlSeconds = parseDuration(values.ttl);
  const config = loadConfig();
  // The embedded store's key is a file, read without opening the database a running server holds.
  let store: Store | undefined;
  if (config.databaseUrl !== undefined && config.tokenKey === undefined) store = await openStore(config);
  try {
    const signer = new TokenSigner(await signingKeyFor(config, store), config.adminGroup);
    const subject = values.subject.trim();
    const { token } = await signer.sign({
      subject,
      ...(subject.includes('@') ? { email: subject } : {}),
      groups,
      ttlSeconds,
    });
    return token;
  } finally {
    await store?.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'token') {
    process.stdout.write(`${await mintToken(rest)}\n`);
    return;
  }
  process.stderr.write(`${usage}\n`);
  process.exitCode = command === undefined || command === '--help' || command === 'help' ? 0 : 2;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`stratum: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});

#!/usr/bin/env node
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { TokenSigner } from './auth/tokens.js';
import { loadConfig } from './config.js';
import { signingKeyFor } from './keys.js';
import { resources } from './resources/index.js';
import { generateEncryptionKey, parseEncryptionKey, SecretCipher } from './secrets/cipher.js';
import { loadEncryptionKey, nextKeyFile, openSecretCipher, writeKeyFile } from './secrets/encryption-key.js';
import { resealSecrets } from './secrets/rotation.js';
import { openStore, type Store } from './store/database.js';

const usage = `usage: stratum token --subject EMAIL --groups G1,G2 [--ttl DURATION]
       stratum rotate-encryption-key

  token      Mints a bearer token signed with the server's key (STRATUM_TOKEN_KEY, else the key
             kept in STRATUM_DATA_DIR or in the DATABASE_URL database). Prints the token alone on
             the last line.
    --subject   who the token speaks for; an email address is also used as the email claim
    --groups    comma-separated directory groups, e.g. STRATUM_ADMIN for an administrator
    --ttl       lifetime: a number and a unit, s, m, h or d, combinable (90m, 1d12h); default 30d

  rotate-encryption-key
             Re-encrypts every stored secret under a new key, in one transaction. Run it with the
             server stopped. The current key is STRATUM_ENCRYPTION_KEY or the data folder's
             encryption.key; the new one is STRATUM_NEW_ENCRYPTION_KEY, or generated. A key file
             is replaced; a key given in the environment is replaced by you, with the new key,
             before the server starts again.`;

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

async function rotateEncryptionKey(args: string[]): Promise<string> {
  parseArgs({ args, options: {}, strict: true });
  const config = loadConfig();
  const given = process.env.STRATUM_NEW_ENCRYPTION_KEY?.trim();
  const nextText = given === undefined || given === '' ? generateEncryptionKey() : given;
  const next = new SecretCipher(parseEncryptionKey(nextText));
  // The embedded store's folder lock refuses this while a server holds the data folder.
  const store = await openStore(config);
  try {
    const current = await openSecretCipher(config, store);
    if (current.keyId === next.keyId) throw new Error('the new key is the current key');
    const { file } = loadEncryptionKey(config);
    // The new key reaches the disk before the secrets move to it, so a crash in between loses
    // neither: the server finds it in encryption.key.next and finishes the rotation.
    if (file !== undefined) writeKeyFile(nextKeyFile(file), nextText, 'w');
    const count = await resealSecrets(store, resources, current, next);
    if (file !== undefined) {
      fs.renameSync(nextKeyFile(file), file);
      return `re-encrypted ${count} secret values; the new key is in ${file}`;
    }
    if (given !== undefined && given !== '') {
      return `re-encrypted ${count} secret values; set STRATUM_ENCRYPTION_KEY to STRATUM_NEW_ENCRYPTION_KEY before starting the server`;
    }
    return `re-encrypted ${count} secret values; set STRATUM_ENCRYPTION_KEY to this new key before starting the server:\n${nextText}`;
  } finally {
    await store.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'token') {
    process.stdout.write(`${await mintToken(rest)}\n`);
    return;
  }
  if (command === 'rotate-encryption-key') {
    process.stdout.write(`${await rotateEncryptionKey(rest)}\n`);
    return;
  }
  process.stderr.write(`${usage}\n`);
  process.exitCode = command === undefined || command === '--help' || command === 'help' ? 0 : 2;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`stratum: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});

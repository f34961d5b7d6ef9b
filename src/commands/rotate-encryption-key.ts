import fs from 'node:fs';
import { sealPlaintextSigningKey, signingKeyName } from '../auth/signing-key.js';
import { loadConfig } from '../config.js';
import { registry } from '../resources/index.js';
import { generateEncryptionKey, parseEncryptionKey, SecretCipher } from '../secrets/cipher.js';
import { findEncryptionKey, loadEncryptionKey, nextKeyFile, openSecretCipher, writeKeyFile } from '../secrets/encryption-key.js';
import { resealSecrets } from '../secrets/rotation.js';
import { openConsoleStore, requireMigrated } from './console-store.js';
import { CommandFailure } from './exit-codes.js';
import { consoleAdministrator } from './console-session.js';

/**
 * `stratum rotate-encryption-key`: re-seals every secret and the sealed service keys under a new
 * key in one transaction. It takes the data-folder lock, so it refuses to run beside a server.
 */
export async function rotateEncryptionKey(): Promise<void> {
  const config = loadConfig();
  const given = process.env.STRATUM_NEW_ENCRYPTION_KEY?.trim();
  const nextText = given === undefined || given === '' ? generateEncryptionKey() : given;
  let next: SecretCipher;
  try {
    next = new SecretCipher(parseEncryptionKey(nextText));
  } catch (error) {
    throw new CommandFailure(`STRATUM_NEW_ENCRYPTION_KEY: ${error instanceof Error ? error.message : String(error)}`);
  }
  const store = await openConsoleStore(config, 'exclusive');
  try {
    if (findEncryptionKey(config) === undefined) {
      throw new CommandFailure(
        `there is no encryption key to rotate: ${config.dataDir} holds no encryption.key and STRATUM_ENCRYPTION_KEY is unset; restore the key the secrets were sealed with`,
      );
    }
    await requireMigrated(store, config, false);
    const current = await openSecretCipher(config, store);
    if (current.keyId === next.keyId) throw new CommandFailure('the new key is the current key');
    const { file } = loadEncryptionKey(config);
    // The new key reaches the disk before the secrets move to it, so a crash in between loses
    // neither: the server finds it in encryption.key.next and finishes the rotation.
    if (file !== undefined) writeKeyFile(nextKeyFile(file), nextText, 'w');
    // A signing key an earlier version left in plain text is sealed first, so that it moves too.
    await sealPlaintextSigningKey(store.db, current);
    const resealed = await resealSecrets(store, registry, { from: current, to: next }, consoleAdministrator(config));
    const done = `re-encrypted ${resealed.secrets} secret values${resealed.serviceKeys.includes(signingKeyName) ? ' and the token-signing key' : ''}`;
    if (file !== undefined) {
      // The previous key is kept, not overwritten: backups taken before now open only with it.
      const previous = `${file}.previous-${current.keyId}`;
      writeKeyFile(previous, fs.readFileSync(file, 'utf8').trim(), 'wx');
      fs.renameSync(nextKeyFile(file), file);
      process.stdout.write(`${done}; the new key is in ${file}\n${previousKeyNote(current.keyId, previous)}`);
    } else if (given !== undefined && given !== '') {
      process.stdout.write(
        `${done}; set STRATUM_ENCRYPTION_KEY to STRATUM_NEW_ENCRYPTION_KEY before starting the server\n${previousKeyNote(current.keyId)}`,
      );
    } else {
      process.stdout.write(
        `${done}; set STRATUM_ENCRYPTION_KEY to this new key before starting the server:\n${nextText}\n${previousKeyNote(current.keyId)}`,
      );
    }
  } finally {
    await store.close();
  }
}

/** What a rotation leaves behind: every backup taken before it still needs the previous key. */
function previousKeyNote(keyId: string, keptIn?: string): string {
  const where = keptIn === undefined ? 'the value STRATUM_ENCRYPTION_KEY has now' : `kept in ${keptIn}`;
  return (
    `Backups taken before this rotation hold secrets sealed with the previous key (id ${keyId}, ${where}): ` +
    `keep that key with them, apart from the backups, for as long as you keep them; without it their secrets cannot be read.\n`
  );
}

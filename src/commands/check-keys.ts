import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { inspectStoredSigningKey, readSigningKeyFile, signingKeyFile } from '../auth/signing-key.js';
import type { Config } from '../config.js';
import { SecretCipher } from '../secrets/cipher.js';
import { findCheck, findEncryptionKey, nextKeyFile, opens, sealedKeyId } from '../secrets/encryption-key.js';
import type { Store } from '../store/database.js';
import type { Finding } from './findings.js';

/** A key's fingerprint: the same on every replica that uses the same key, and useless to an attacker. */
export const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 12);

/**
 * The encryption key against the check value sealed beside the secrets: whether the configured
 * key opens what the store holds. `store` is undefined when it could not be opened or set up yet.
 */
export async function encryptionKeyFindings(
  config: Config,
  store: Store | undefined,
): Promise<{ findings: Finding[]; cipher?: SecretCipher }> {
  const subject = 'encryption key';
  let found;
  try {
    found = findEncryptionKey(config);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      findings: [{ status: 'fail', subject, found: reason, fix: 'restore the key file from your backup, or set STRATUM_ENCRYPTION_KEY' }],
    };
  }
  const check = store === undefined ? undefined : await findCheck(store);
  if (found === undefined) {
    // PostgreSQL without STRATUM_ENCRYPTION_KEY: the configuration's own finding says so.
    if (config.databaseUrl !== undefined) return { findings: [] };
    if (check === undefined) {
      return {
        findings: [{ status: 'ok', subject, found: `none yet: the server generates ${config.dataDir}/encryption.key at its first start` }],
      };
    }
    return {
      findings: [
        {
          status: 'fail',
          subject,
          found: `the store holds secrets sealed with key id ${sealedKeyId(check)}, but ${config.dataDir} has no encryption.key and STRATUM_ENCRYPTION_KEY is unset`,
          fix: 'restore encryption.key from your backup into the data folder, or set STRATUM_ENCRYPTION_KEY to that key; a new key would not open them',
        },
      ],
    };
  }
  const cipher = new SecretCipher(found.key);
  const source = found.file ?? 'STRATUM_ENCRYPTION_KEY';
  if (check === undefined)
    return { findings: [{ status: 'ok', subject, found: `${source} (key id ${cipher.keyId}); nothing is sealed with it yet` }], cipher };
  if (opens(cipher, check))
    return { findings: [{ status: 'ok', subject, found: `${source} (key id ${cipher.keyId}) opens the secrets the store holds` }], cipher };
  const next = found.file === undefined ? undefined : nextKeyFile(found.file);
  if (next !== undefined && fs.existsSync(next)) {
    return {
      findings: [
        {
          status: 'warn',
          subject,
          found: `a key rotation stopped before renaming ${next}`,
          fix: 'start the server (or run this check again after it started): it finishes the rotation',
        },
      ],
    };
  }
  return {
    findings: [
      {
        status: 'fail',
        subject,
        found: `${source} (key id ${cipher.keyId}) does not open the secrets the store holds (sealed with key id ${sealedKeyId(check)})`,
        fix: "use the key they were sealed with (STRATUM_ENCRYPTION_KEY or the data folder's encryption.key); change keys only with `stratum rotate-encryption-key`",
      },
    ],
  };
}

/** The signing key the server would use, against the one the store holds. */
export async function signingKeyFindings(config: Config, store: Store | undefined, cipher: SecretCipher | undefined): Promise<Finding[]> {
  const subject = 'signing key';
  const compare = 'each server logs the fingerprint of its key at start: they must all match';
  if (config.databaseUrl === undefined) {
    const file = signingKeyFile(config);
    const stored = readSigningKeyFile(config);
    if (config.tokenKey !== undefined) {
      const findings: Finding[] = [
        { status: 'ok', subject, found: `STRATUM_TOKEN_KEY (fingerprint ${fingerprint(config.tokenKey)}; ${compare})` },
      ];
      if (stored !== undefined && stored !== config.tokenKey) {
        findings.push({
          status: 'warn',
          subject,
          found: `${file} holds another key (fingerprint ${fingerprint(stored)}), which the server ignores while STRATUM_TOKEN_KEY is set`,
          fix: 'mint tokens with STRATUM_TOKEN_KEY set as the server has it; remove token.key if nothing uses it',
        });
      }
      return findings;
    }
    if (stored === undefined) {
      return [
        store === undefined
          ? { status: 'ok', subject, found: `none yet: the server generates ${file} at its first start` }
          : {
              status: 'warn',
              subject,
              found: `${file} is missing beside an existing database`,
              fix: 'restore token.key from your backup; a new one (generated at the next start) refuses every token minted before',
            },
      ];
    }
    if (stored.length < 32)
      return [
        { status: 'fail', subject, found: `${file} holds no usable key (shorter than 32 characters)`, fix: 'restore it from your backup' },
      ];
    return [{ status: 'ok', subject, found: `${file} (fingerprint ${fingerprint(stored)}; ${compare})` }];
  }
  if (store === undefined || cipher === undefined) {
    return config.tokenKey === undefined
      ? []
      : [{ status: 'ok', subject, found: `STRATUM_TOKEN_KEY (fingerprint ${fingerprint(config.tokenKey)})` }];
  }
  const stored = await inspectStoredSigningKey(store.db, cipher);
  if (stored.state === 'unreadable') {
    return [
      {
        status: 'fail',
        subject,
        found: `the key kept in the database is sealed with key id ${stored.sealedWith}, which STRATUM_ENCRYPTION_KEY (key id ${cipher.keyId}) does not open`,
        fix: 'set STRATUM_ENCRYPTION_KEY to the key the servers use',
      },
    ];
  }
  if (config.tokenKey !== undefined) {
    const findings: Finding[] = [
      { status: 'ok', subject, found: `STRATUM_TOKEN_KEY (fingerprint ${fingerprint(config.tokenKey)}; ${compare})` },
    ];
    if (stored.state !== 'absent' && stored.key !== config.tokenKey) {
      findings.push({
        status: 'warn',
        subject,
        found: `the database also holds a generated key (fingerprint ${fingerprint(stored.key)}): a server started without STRATUM_TOKEN_KEY signs with that one`,
        fix: 'set STRATUM_TOKEN_KEY on every replica and wherever `stratum token` runs',
      });
    }
    return findings;
  }
  if (stored.state === 'absent')
    return [{ status: 'ok', subject, found: 'none yet: the first server to start generates it, sealed in the database' }];
  if (stored.state === 'plain') {
    return [
      {
        status: 'warn',
        subject,
        found: `kept in plain text by an earlier version (fingerprint ${fingerprint(stored.key)})`,
        fix: 'start a server: it seals the key in place',
      },
    ];
  }
  return [{ status: 'ok', subject, found: `sealed in the database (fingerprint ${fingerprint(stored.key)}; ${compare})` }];
}

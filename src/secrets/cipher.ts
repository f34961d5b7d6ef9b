import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const algorithm = 'aes-256-gcm';
const version = 's1';

/**
 * Seals secret values with AES-256-GCM under the service's encryption key. A sealed value reads
 * `s1:<key id>:<iv>:<ciphertext and tag>`; the key id (a hash prefix, not the key) tells which key
 * sealed it. Each value is bound to where it is stored (`table.column.id`) as additional data, so a
 * sealed value copied into another record does not open.
 */
export class SecretCipher {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the encryption key must be 32 bytes');
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 12);
  }

  seal(plain: string, place: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv(algorithm, this.key, iv);
    cipher.setAAD(Buffer.from(place));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${version}:${this.keyId}:${iv.toString('base64url')}:${body.toString('base64url')}`;
  }

  /** Opens a sealed value; throws when another key sealed it, it was moved, or it was altered. */
  open(sealed: string, place: string): string {
    const [prefix, keyId, iv, body] = sealed.split(':');
    if (prefix !== version || iv === undefined || body === undefined) throw new Error('not a sealed value');
    if (keyId !== this.keyId) throw new Error(`sealed with another key (${String(keyId)})`);
    const bytes = Buffer.from(body, 'base64url');
    const decipher = createDecipheriv(algorithm, this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(place));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
  }
}

/** Whether a stored value is sealed, rather than plain text an earlier version wrote. */
export function isSealed(value: string): boolean {
  return value.startsWith(`${version}:`);
}

/** Where a sealed value is stored, the additional data it is bound to. */
export function secretPlace(table: string, column: string, id: unknown): string {
  return `${table}.${column}.${String(id)}`;
}

/** Reads a 32-byte key written as 64 hex digits or as base64 / base64url. */
export function parseEncryptionKey(text: string): Buffer {
  const trimmed = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (bytes.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(trimmed) && !/^[A-Za-z0-9+/_-]+=*$/.test(trimmed))) {
    throw new Error('an encryption key must be 32 bytes written as 64 hex digits or in base64');
  }
  return bytes;
}

export function generateEncryptionKey(): string {
  return randomBytes(32).toString('base64url');
}

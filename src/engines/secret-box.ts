import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets the service must read back (RCON passwords) are sealed with AES-256-GCM under
 * HUB_SECRET_KEY: a random 12-byte IV per secret, the 16-byte authentication tag, and a versioned
 * text format that names the key it was sealed under, so a key can be rotated later (a second key
 * setting, and each blob opened with the key its id names) and a wrong key is reported as such:
 *
 *     v1.<key id: 8 hex>.<base64url(iv ‖ tag ‖ ciphertext)>
 *
 * The purpose (`aad`, e.g. `rcon_password`) is authenticated too: a blob copied into another
 * column does not open there.
 */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** Why a sealed secret could not be opened; the message names no secret. */
export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

export interface SecretKey {
  readonly bytes: Buffer;
  /** a short public fingerprint of the key, stored with each blob */
  readonly id: string;
}

const HEX = /^[0-9a-fA-F]{64}$/;
const BASE64 = /^[A-Za-z0-9+/]{43}=$|^[A-Za-z0-9_-]{43}$/;

/** What HUB_SECRET_KEY must be, in words. */
export const SECRET_KEY_FORMAT = '32 random bytes, as 64 hex digits or 44 base64 characters';

/** A 32-byte key from its hex or base64 text; throws a SecretBoxError (without the value) otherwise. */
export function parseSecretKey(text: string): SecretKey {
  const trimmed = text.trim();
  let bytes: Buffer | undefined;
  if (HEX.test(trimmed)) bytes = Buffer.from(trimmed, 'hex');
  else if (BASE64.test(trimmed)) bytes = Buffer.from(trimmed, trimmed.endsWith('=') ? 'base64' : 'base64url');
  if (bytes?.length !== KEY_BYTES) throw new SecretBoxError(`HUB_SECRET_KEY must be ${SECRET_KEY_FORMAT}`);
  return keyOf(bytes);
}

const keyOf = (bytes: Buffer): SecretKey => ({
  bytes,
  id: createHash('sha256').update('hub secret key id\0').update(bytes).digest('hex').slice(0, 8),
});

/** A new random key and its text form (base64), as kept in the data folder. */
export function generateSecretKey(): { key: SecretKey; text: string } {
  const bytes = randomBytes(KEY_BYTES);
  return { key: keyOf(bytes), text: bytes.toString('base64') };
}

export function seal(key: SecretKey, plaintext: string, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
  cipher.setAAD(Buffer.from(aad));
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const payload = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
  return `${VERSION}.${key.id}.${payload}`;
}

/** The key id a blob was sealed under (undefined when it is not a blob of a known version). */
export function sealedKeyId(blob: string): string | undefined {
  const [version, id] = blob.split('.');
  return version === VERSION && id !== undefined && /^[0-9a-f]{8}$/.test(id) ? id : undefined;
}

export function open(key: SecretKey, blob: string, aad: string): string {
  const parts = blob.split('.');
  const id = sealedKeyId(blob);
  if (parts.length !== 3 || id === undefined)
    throw new SecretBoxError('not a sealed secret of a known format');
  if (id !== key.id)
    throw new SecretBoxError(`sealed under another key (key id ${id}; HUB_SECRET_KEY has key id ${key.id})`);
  const bytes = Buffer.from(parts[2] ?? '', 'base64url');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('the sealed secret is truncated');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new SecretBoxError('the sealed secret does not authenticate (altered, or sealed for another use)');
  }
}

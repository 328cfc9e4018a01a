import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Client ids are public; client secrets are `ghcs_` + 43 random characters (256 bits), shown once. */
export const CLIENT_SECRET_PREFIX = 'ghcs_';
export const newClientId = (): string => `app_${randomBytes(16).toString('hex')}`;
export const newClientSecret = (): string => CLIENT_SECRET_PREFIX + randomBytes(32).toString('base64url');

/** Only this SHA-256 (hex) of a client secret is stored. */
export const hashClientSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export function secretMatches(storedHash: string | undefined, given: string): boolean {
  const expected = Buffer.from(storedHash ?? '', 'hex');
  const actual = Buffer.from(hashClientSecret(given), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

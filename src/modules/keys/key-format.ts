import { hash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key format: `ghk_` + 32 random base62 characters + a 6-character base62 CRC32 of those 32.
 * The fixed prefix and checksum let secret scanners recognise a leaked key without a database, and
 * let the service reject a mistyped key without a lookup. Only the SHA-256 is stored.
 */
export const KEY_PREFIX = 'ghk_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
export const KEY_PATTERN = /^ghk_[0-9A-Za-z]{38}$/;
/** How many characters of a key are kept in clear to tell keys apart in listings. */
export const DISPLAY_PREFIX_LENGTH = KEY_PREFIX.length + 6;

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET.charAt(rest % 62) + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

const checksum = (body: string): string => base62(crc32(body) >>> 0, CHECKSUM_LENGTH);

export function generateKey(): string {
  let body = '';
  for (let i = 0; i < BODY_LENGTH; i++) body += ALPHABET.charAt(randomInt(62));
  return KEY_PREFIX + body + checksum(body);
}

/** True when the key has the right shape and its checksum matches; no database needed. */
export function isWellFormedKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY_LENGTH);
  return checksum(body) === key.slice(KEY_PREFIX.length + BODY_LENGTH);
}

// One-shot hashing: per authenticated request, without a Hash object (less than half the cost).
export const hashKey = (key: string): string => hash('sha256', key, 'hex');

export const displayPrefix = (key: string): string => key.slice(0, DISPLAY_PREFIX_LENGTH);

/**
 * Constant-time comparison of two hex digests: every character is compared, with no early exit,
 * so the time taken says nothing about where they differ (only their length, which is public).
 * On the strings themselves: decoding both to buffers for `timingSafeEqual` took six times longer.
 */
export function sameHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

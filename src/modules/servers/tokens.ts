import { randomInt } from 'node:crypto';
import { hashKey } from '../keys/key-format.js';

/**
 * Ingest tokens are 32 decimal digits (≈106 bits), first digit non-zero. Digits only, because the
 * same token is set as `sv_logsecret` on GoldSrc/Source servers, and the engine only sends the
 * secret when the cvar reads as a non-zero number. Only the SHA-256 is stored, like API keys.
 */
export const TOKEN_PATTERN = /^[1-9]\d{31}$/;

export function generateToken(): string {
  let token = String(1 + randomInt(9));
  while (token.length < 32) token += String(randomInt(10));
  return token;
}

export const hashToken = hashKey;

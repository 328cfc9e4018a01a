import type { KeyRecord, KeysRepo, NewKey } from './repo.js';
import { displayPrefix, generateKey, hashKey } from './key-format.js';
import type { Tier } from './tiers.js';

export interface CreateKeyInput {
  name: string;
  userId?: number | null;
  tier?: Tier | null;
  quota?: number | null;
}

/** A fresh secret and the row that stores it (only its hash and display prefix). */
export function newKey(input: CreateKeyInput, now = Date.now()): { row: NewKey; secret: string } {
  const secret = generateKey();
  const row: NewKey = {
    user_id: input.userId ?? null,
    name: input.name,
    prefix: displayPrefix(secret),
    hash: hashKey(secret),
    tier: input.tier ?? null,
    quota: input.quota ?? null,
    created_at: now,
  };
  return { row, secret };
}

/** Creates a key and returns its record plus the secret, which exists only in this return value. */
export async function createKey(
  repo: KeysRepo,
  input: CreateKeyInput,
  now = Date.now(),
): Promise<{ record: KeyRecord; secret: string }> {
  const { row, secret } = newKey(input, now);
  return { record: await repo.insert(row), secret };
}

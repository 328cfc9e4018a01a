import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';
import { hashKey, KEY_PATTERN } from '../modules/keys/key-format.js';
import { keysRepo } from '../modules/keys/repo.js';
import { createKey } from '../modules/keys/service.js';

export const DEMO_KEY_NAME = 'demo key';
const FILE_NAME = 'demo-key';

export interface DemoKey {
  /** the secret, when it was just made or is kept in the data folder */
  secret?: string;
  prefix: string;
  id: number;
  created: boolean;
  /** where the secret is kept, if anywhere */
  file?: string;
}

/** The local data folder of an embedded database (beside the SQLite file); none for PostgreSQL. */
export function localDataFolder(databaseUrl: string): string | undefined {
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const file = databaseUrl.slice('sqlite:'.length);
  return file === ':memory:' ? undefined : dirname(file);
}

const readSecret = (file: string): string | undefined => {
  try {
    const text = readFileSync(file, 'utf8').trim();
    return KEY_PATTERN.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The premium key `npm start` prints: made on the first start, then reused. The database keeps only
 * its hash, as for every key; the secret is also written to the local data folder (mode 0600,
 * beside the SQLite file, never committed) so that later starts can print it again. Without that
 * file (deleted, or a PostgreSQL database) a later start names the key by its prefix only.
 * A revoked demo key is replaced by a new one.
 */
export async function demoKey(db: Kysely<Database>, dataFolder: string | undefined): Promise<DemoKey> {
  const keys = keysRepo(db);
  const file = dataFolder ? join(dataFolder, FILE_NAME) : undefined;
  const active = (await keys.list()).filter(
    (k) => k.name === DEMO_KEY_NAME && k.user_id === null && k.revoked_at === null,
  );
  const kept = file ? readSecret(file) : undefined;
  if (kept) {
    const hash = hashKey(kept);
    const found = await keys.findForAuth(hash, () => true);
    const record = found && active.find((k) => k.id === found.id);
    if (record)
      return {
        secret: kept,
        prefix: record.prefix,
        id: record.id,
        created: false,
        ...(file ? { file } : {}),
      };
  }
  const earlier = active.at(-1);
  if (earlier) return { prefix: earlier.prefix, id: earlier.id, created: false };
  const { record, secret } = await createKey(keys, { name: DEMO_KEY_NAME, tier: 'premium' });
  if (file) writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return { secret, prefix: record.prefix, id: record.id, created: true, ...(file ? { file } : {}) };
}

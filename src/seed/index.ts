import type { Db } from '../db/connect.js';

export interface SeedOptions {
  users?: number;
  kills?: number;
  seed?: number;
  /** called with (done, total, phase) as the load progresses */
  onProgress?: (done: number, total: number, phase: string) => void;
}

/** True when the database holds no users yet (demo mode seeds only then). */
export async function isDatabaseEmpty(db: Db): Promise<boolean> {
  const row = await db.kysely.selectFrom('users').select('id').limit(1).executeTakeFirst();
  return row === undefined;
}

/** Loads deterministic demo data. Implemented in src/seed/generate.ts. */
export async function seedDatabase(_db: Db, _options: SeedOptions): Promise<void> {
  await Promise.reject(new Error('seedDatabase: not written yet'));
}

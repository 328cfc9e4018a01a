import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Db } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { keysRepo } from '../src/modules/keys/repo.js';
import { createKey } from '../src/modules/keys/service.js';
import { TIERS } from '../src/modules/keys/tiers.js';
import { seedDatabase } from '../src/seed/index.js';
import { progressReporter } from '../src/seed/progress.js';

export interface BenchDb {
  db: Db;
  seedMs: number;
  drop(): Promise<void>;
}

/** A fresh temp SQLite database with the demo world at the requested size. */
export async function seededDb(users: number, kills: number, seed: number): Promise<BenchDb> {
  const dir = mkdtempSync(join(tmpdir(), 'hub-bench-db-'));
  const db = connect(`sqlite:${join(dir, 'hub.sqlite')}`);
  await migrateToLatest(db);
  const summary = await seedDatabase(db, { users, kills, seed, onProgress: progressReporter() });
  return {
    db,
    seedMs: summary.ms,
    drop: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Enough partner keys that `expectedRequests` spread evenly never reach one key's hourly quota. */
export async function partnerKeys(db: Db, expectedRequests: number): Promise<string[]> {
  const count = Math.max(20, Math.ceil((expectedRequests * 2) / TIERS.partner));
  const repo = keysRepo(db.kysely);
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    keys.push((await createKey(repo, { name: `bench ${i + 1}`, tier: 'partner' })).secret);
  }
  return keys;
}

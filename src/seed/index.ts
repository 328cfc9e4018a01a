import type { Db } from '../db/connect.js';
import { generate, type SeedOptions, type SeedSummary } from './generate.js';
import { seedRepo } from './repo.js';

export {
  MIN_USERS,
  SEED_DEFAULTS,
  SeedRefusedError,
  type SeedOptions,
  type SeedSummary,
} from './generate.js';

/** True when the database holds no users yet (demo mode seeds only then). */
export async function isDatabaseEmpty(db: Db): Promise<boolean> {
  return !(await seedRepo(db).hasUsers());
}

/** Loads deterministic demo data (see generate.ts for what and how). */
export function seedDatabase(db: Db, options: SeedOptions): Promise<SeedSummary> {
  return generate(db, options);
}

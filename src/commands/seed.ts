import type { Db } from '../db/connect.js';
import { seedDatabase } from '../seed/index.js';
import { intOption, parse } from './args.js';

export const SEED_USAGE = 'hub seed [--users N] [--kills N] [--seed S]   load deterministic demo data';

export async function seedCommand(db: Db, argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    users: { type: 'string' },
    kills: { type: 'string' },
    seed: { type: 'string' },
  });
  const users = intOption(values.users, 'users', 1, 10_000_000);
  const kills = intOption(values.kills, 'kills', 0, 100_000_000);
  const seed = intOption(values.seed, 'seed', 0, 2 ** 31 - 1);
  await seedDatabase(db, {
    ...(users ? { users } : {}),
    ...(kills !== undefined ? { kills } : {}),
    ...(seed !== undefined ? { seed } : {}),
  });
}

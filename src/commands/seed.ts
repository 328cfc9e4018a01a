import type { Db } from '../db/connect.js';
import { MIN_USERS, SEED_DEFAULTS, SeedRefusedError, seedDatabase } from '../seed/index.js';
import { progressReporter } from '../seed/progress.js';
import { intOption, parse, UsageError } from './args.js';

export const SEED_USAGE = `hub seed [--users N] [--kills N] [--seed S] [--reset]   load deterministic demo data
                            (defaults ${SEED_DEFAULTS.users} users, ${SEED_DEFAULTS.kills} kills, seed ${SEED_DEFAULTS.seed};
                            refuses a database that holds data unless --reset wipes the demo tables)`;

export async function seedCommand(db: Db, argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    users: { type: 'string' },
    kills: { type: 'string' },
    seed: { type: 'string' },
    reset: { type: 'boolean' },
  });
  const users = intOption(values.users, 'users', MIN_USERS, 10_000_000);
  const kills = intOption(values.kills, 'kills', 0, 100_000_000);
  const seed = intOption(values.seed, 'seed', 0, 2 ** 31 - 1);
  try {
    const summary = await seedDatabase(db, {
      ...(users !== undefined ? { users } : {}),
      ...(kills !== undefined ? { kills } : {}),
      ...(seed !== undefined ? { seed } : {}),
      reset: values.reset === true,
      onProgress: progressReporter(),
    });
    console.log(
      `Seeded ${summary.users.toLocaleString('en-US')} users and ${summary.kills.toLocaleString('en-US')} kills (seed ${summary.seed}) in ${(summary.ms / 1000).toFixed(1)} s.`,
    );
  } catch (err) {
    // an occupied database is a usage problem (exit 2), not a crash
    if (err instanceof SeedRefusedError) throw new UsageError(err.message);
    throw err;
  }
}

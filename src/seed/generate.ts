import type { Db } from '../db/connect.js';
import { countDeathsFromFeed, dayOf, rebuildFragTotals } from '../modules/killboard/rollups.js';
import { insertClans, planClans } from './clans.js';
import { insertCommunity, planCommunity } from './community.js';
import { seedKills } from './kills.js';
import { seedMatches } from './matches.js';
import { insertProfiles } from './profiles.js';
import { Rng } from './random.js';
import { seedRepo, type SeedRepo } from './repo.js';
import { pollHistory } from './polls.js';
import { createWorld } from './world.js';

export const SEED_DEFAULTS = { users: 500, kills: 20_000, seed: 1 } as const;
export const MIN_USERS = 10;
/**
 * From these sizes on, the secondary indexes of the big tables are rebuilt once after the load
 * instead of row by row.
 */
const BULK_KILLS = 200_000;
const BULK_USERS = 50_000;

export interface SeedOptions {
  users?: number;
  kills?: number;
  seed?: number;
  /** the clock the data is relative to (default Date.now()); same seed + same now = same rows */
  now?: number;
  /** delete existing demo rows first instead of refusing */
  reset?: boolean;
  /** memory bound (cells) of the in-memory daily-rollup grid; larger worlds write rollups per day */
  maxDenseCells?: number;
  /** called with (done, total, phase) as the load progresses */
  onProgress?: (done: number, total: number, phase: string) => void;
}

export interface SeedSummary {
  users: number;
  kills: number;
  seed: number;
  ms: number;
}

export class SeedRefusedError extends Error {
  override name = 'SeedRefusedError';
}

const SERVER_COLUMNS = [
  'id',
  'name',
  'game',
  'ip',
  'port',
  'query_port',
  'status',
  'players',
  'max_players',
  'map',
  'region',
  'created_at',
] as const;

/**
 * Loads a deterministic demo world: the RNG is the only source of choices, so the same seed and
 * the same `now` give identical rows. Refuses to touch a database that already holds demo rows
 * unless `reset` is set, because appending a second world would break uniqueness and rollups.
 */
export async function generate(db: Db, options: SeedOptions): Promise<SeedSummary> {
  const started = performance.now();
  const users = options.users ?? SEED_DEFAULTS.users;
  const kills = options.kills ?? SEED_DEFAULTS.kills;
  const seed = options.seed ?? SEED_DEFAULTS.seed;
  const now = options.now ?? Date.now();
  if (!Number.isInteger(users) || users < MIN_USERS)
    throw new RangeError(`users must be an integer ≥ ${MIN_USERS}`);
  if (!Number.isInteger(kills) || kills < 0) throw new RangeError('kills must be a non-negative integer');
  const report = options.onProgress ?? (() => undefined);
  const repo = seedRepo(db);

  const existing = await repo.firstNonEmptyTable();
  if (existing !== undefined) {
    if (!options.reset) {
      throw new SeedRefusedError(
        `The database already holds data (table ${existing}); run \`hub seed --reset\` to replace it with demo data.`,
      );
    }
    report(0, 1, 'wiping');
    await repo.wipe();
    report(1, 1, 'wiping');
  }

  await repo.fastLoad(() =>
    load(db, repo, { users, kills, seed, now, maxDenseCells: options.maxDenseCells }, report),
  );
  return { users, kills, seed, ms: Math.round(performance.now() - started) };
}

async function load(
  db: Db,
  repo: SeedRepo,
  {
    users,
    kills,
    seed,
    now,
    maxDenseCells,
  }: { users: number; kills: number; seed: number; now: number; maxDenseCells: number | undefined },
  report: (done: number, total: number, phase: string) => void,
): Promise<void> {
  const rng = new Rng(seed);
  report(0, users, 'players');
  const world = createWorld(rng, users, now);
  report(users, users, 'players');
  await repo.inTransaction(async (trx) => {
    await repo
      .writer(trx, 'game_servers', SERVER_COLUMNS)
      .pushAll(world.servers.map((s) => SERVER_COLUMNS.map((column) => s[column])));
    await repo
      .writer(trx, 'server_polls', ['server_id', 'hour', 'ok', 'total'])
      .pushAll(pollHistory(world.servers, now));
  });

  const loadKills = () =>
    seedKills(world, repo, kills, (done) => report(done, kills, 'kills'), maxDenseCells);
  if (kills >= BULK_KILLS) {
    await repo.withoutIndexes('kills', () => repo.withoutIndexes('frag_daily', loadKills));
    report(1, 1, 'indexes');
  } else await loadKills();
  const loadMatches = () => seedMatches(world, repo, 1, (done, total) => report(done, total, 'matches'));
  const { results } =
    users >= BULK_USERS ? await repo.withoutIndexes('elo_history', loadMatches) : await loadMatches();
  report(0, 1, 'community');
  const community = planCommunity(world);
  report(0, users, 'profiles');
  await insertProfiles(world, repo, results);
  report(users, users, 'profiles');
  await insertCommunity(repo, community);
  await insertClans(repo, planClans(world));
  report(1, 1, 'community');
  report(0, 1, 'rollups');
  await rebuildFragTotals(db.kysely, dayOf(now));
  // every seeded kill is in the feed: the deaths are counted from it
  await countDeathsFromFeed(db.kysely);
  await repo.syncSequences();
  report(1, 1, 'rollups');
}

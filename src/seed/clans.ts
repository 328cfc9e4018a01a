import { GAMES } from './games.js';
import type { SeedRepo } from './repo.js';
import { DAY, type World } from './world.js';

/**
 * Demo clans: a few per game, so `/v1/clans` pages (the conformance scenario `paging.v1_clans`
 * walks pages of 2) and a clan page has members to show. Chosen without the RNG: the rest of the
 * world (and every test that reads it) stays what the same seed made before clans existed.
 */
const CLAN_NAMES = [
  'Midnight Ravens',
  'Iron Wolves',
  'Red Comets',
  'Silent Storm',
  'Frag Factory',
  'Blue Lanterns',
  'Creeper Patrol',
  'Rust Raiders',
  'Dust Devils',
  'Headshot Club',
  'Late Spawners',
  'Golden Pickaxes',
  'Nuke Town',
  'Flash Bang Crew',
  'Scrap Barons',
  'Redstone Guild',
] as const;

const JOIN_POLICIES = ['open', 'invite', 'closed'] as const;

type Clan = [
  id: number,
  game: string,
  name: string,
  tag: string,
  description: string,
  joinPolicy: string,
  visibility: string,
  maxMembers: number,
  memberCount: number,
  createdAt: number,
  updatedAt: number,
];
type Member = [clan: number, game: string, user: number, role: string, joinedAt: number];

export interface ClanPlan {
  clans: Clan[];
  members: Member[];
}

/** One clan per 25 users, 6 at least (three pages of 2, one of them private), one name each at most. */
export function planClans(world: World): ClanPlan {
  const count = Math.min(CLAN_NAMES.length, Math.max(6, Math.floor(world.userCount / 25)));
  const taken = new Map<string, number>(); // per game: how many of its players are in a clan
  const plan: ClanPlan = { clans: [], members: [] };
  for (let i = 0; i < count; i++) {
    const game = GAMES[i % GAMES.length];
    const name = CLAN_NAMES[i];
    if (!game || !name) break;
    const pool = world.pools.get(game.code) ?? new Int32Array(0);
    const from = taken.get(game.code) ?? 0;
    // a user is in at most one clan per game: each clan takes the next players of its game's pool
    const size = Math.min(2 + (i % 4), pool.length - from);
    if (size < 1) continue;
    taken.set(game.code, from + size);
    const id = plan.clans.length + 1;
    const createdAt = world.now - (count - i) * 3 * DAY;
    const tag = `${name
      .split(' ')
      .map((word) => word.charAt(0))
      .join('')
      .toUpperCase()}${id}`;
    plan.clans.push([
      id,
      game.code,
      name,
      tag,
      `${name}: a ${game.title} clan of the demo hub.`,
      JOIN_POLICIES[i % JOIN_POLICIES.length] ?? 'open',
      i % 5 === 4 ? 'private' : 'public',
      10 + (i % 3) * 10,
      size,
      createdAt,
      createdAt,
    ]);
    for (let k = 0; k < size; k++) {
      const role = k === 0 ? 'owner' : k === 1 ? 'officer' : 'member';
      plan.members.push([id, game.code, (pool[from + k] ?? 0) + 1, role, createdAt + k * 3_600_000]);
    }
  }
  return plan;
}

/** Writes the planned clans and their members (after the users they reference exist). */
export async function insertClans(repo: SeedRepo, plan: ClanPlan): Promise<void> {
  await repo.inTransaction(async (trx) => {
    await repo
      .writer(trx, 'clans', [
        'id',
        'game',
        'name',
        'tag',
        'description',
        'join_policy',
        'visibility',
        'max_members',
        'member_count',
        'created_at',
        'updated_at',
      ])
      .pushAll(plan.clans);
    await repo
      .writer(trx, 'clan_members', ['clan_id', 'game', 'user_id', 'role', 'joined_at'])
      .pushAll(plan.members);
  });
}

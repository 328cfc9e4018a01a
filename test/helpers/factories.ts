import type { Db } from '../../src/db/connect.js';
import { levelForXp } from '../../src/engines/levels.js';
import { keysRepo } from '../../src/modules/keys/repo.js';
import { createKey } from '../../src/modules/keys/service.js';
import type { Tier } from '../../src/modules/keys/tiers.js';

let sequence = 0;
const next = () => ++sequence;

export interface MadeUser {
  id: number;
  username: string;
  steam_id: string | null;
}

/** Factories write through the same tables the service reads; each call makes a unique record. */
export function factories(db: Db) {
  const k = db.kysely;
  return {
    async makeUser(
      overrides: Partial<{
        username: string;
        total_xp: number;
        steam_id: string | null;
        joined_at: number;
        subscription: 'none' | 'active' | 'premium';
        is_partner: number;
        achievements_count: number;
      }> = {},
    ): Promise<MadeUser> {
      const n = next();
      const total_xp = overrides.total_xp ?? 0;
      return k
        .insertInto('users')
        .values({
          username: overrides.username ?? `player_${n}_${Math.random().toString(36).slice(2, 6)}`,
          avatar: `/avatars/${n}.png`,
          steam_id:
            overrides.steam_id === undefined
              ? String(76561197960265728n + BigInt(n * 1000 + (process.pid % 1000)))
              : overrides.steam_id,
          total_xp,
          level: levelForXp(total_xp),
          achievements_count: overrides.achievements_count ?? 0,
          subscription: overrides.subscription ?? 'none',
          is_partner: overrides.is_partner ?? 0,
          joined_at: overrides.joined_at ?? Date.UTC(2025, 0, 1) + n * 1000,
        })
        .returning(['id', 'username', 'steam_id'])
        .executeTakeFirstOrThrow();
    },

    /** Returns the secret and the key id. */
    async makeKey(
      options: { tier?: Tier | null; quota?: number | null; userId?: number | null; name?: string } = {},
    ): Promise<{ id: number; secret: string }> {
      const { record, secret } = await createKey(keysRepo(k), {
        name: options.name ?? 'test key',
        tier: options.tier === undefined ? 'partner' : options.tier,
        quota: options.quota ?? null,
        userId: options.userId ?? null,
      });
      return { id: record.id, secret };
    },
  };
}

export type Factories = ReturnType<typeof factories>;

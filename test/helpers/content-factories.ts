import type { Db } from '../../src/db/connect.js';
import type { Subscription } from '../../src/modules/keys/tiers.js';

let sequence = 0;
const next = () => ++sequence;

type TournamentStatus = 'upcoming' | 'active' | 'completed';

/**
 * Factories for the hub's content tables (tournaments, servers, forum, achievements), writing
 * through the same tables the service reads. Each returns the whole row it wrote, ids included, so
 * tests can compute expected responses by hand.
 */
export function contentFactories(db: Db) {
  const k = db.kysely;
  return {
    makeTournament(
      overrides: Partial<{
        name: string;
        game: string;
        status: TournamentStatus;
        max_teams: number;
        starts_at: number;
      }> = {},
    ) {
      const n = next();
      return k
        .insertInto('tournaments')
        .values({
          name: overrides.name ?? `Tournament ${n}`,
          game: overrides.game ?? 'cs2',
          status: overrides.status ?? 'upcoming',
          max_teams: overrides.max_teams ?? 16,
          starts_at: overrides.starts_at ?? Date.UTC(2026, 11, 1) + n * 60_000,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    async addParticipant(tournamentId: number, userId: number): Promise<void> {
      await k
        .insertInto('tournament_participants')
        .values({ tournament_id: tournamentId, user_id: userId })
        .execute();
    },

    makeServer(
      overrides: Partial<{
        name: string;
        game: string;
        ip: string;
        port: number;
        status: 'online' | 'offline';
        players: number;
        max_players: number;
        map: string;
        region: string;
      }> = {},
    ) {
      const n = next();
      return k
        .insertInto('game_servers')
        .values({
          name: overrides.name ?? `Server ${n}`,
          game: overrides.game ?? 'cs2',
          ip: overrides.ip ?? `198.51.100.${n % 250}`,
          port: overrides.port ?? 27015,
          query_port: null,
          status: overrides.status ?? 'online',
          players: overrides.players ?? 0,
          max_players: overrides.max_players ?? 20,
          map: overrides.map ?? 'de_dust2',
          region: overrides.region ?? 'unassigned',
          created_at: Date.UTC(2026, 0, 1),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /** A server coming up or going down, as the poller would record it. */
    async setServerStatus(id: number, status: 'online' | 'offline'): Promise<void> {
      await k.updateTable('game_servers').set({ status }).where('id', '=', id).execute();
    },

    makeCategory(name?: string) {
      return k
        .insertInto('forum_categories')
        .values({ name: name ?? `Category ${next()}` })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    makeThread(
      fields: { category_id: number; author_id: number } & Partial<{
        title: string;
        views: number;
        created_at: number;
      }>,
    ) {
      const n = next();
      return k
        .insertInto('forum_threads')
        .values({
          category_id: fields.category_id,
          author_id: fields.author_id,
          title: fields.title ?? `Thread ${n}`,
          views: fields.views ?? 0,
          created_at: fields.created_at ?? Date.UTC(2026, 5, 1) + n * 1000,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    makePost(
      fields: { thread_id: number; author_id: number } & Partial<{ content: string; created_at: number }>,
    ) {
      const n = next();
      return k
        .insertInto('forum_posts')
        .values({
          thread_id: fields.thread_id,
          author_id: fields.author_id,
          content: fields.content ?? `Post ${n}`,
          created_at: fields.created_at ?? Date.UTC(2026, 5, 1) + n * 1000,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    makeAchievement(
      overrides: Partial<{
        code: string;
        name: string;
        description: string;
        icon: string;
        category: string;
        xp_reward: number;
      }> = {},
    ) {
      const n = next();
      return k
        .insertInto('achievements')
        .values({
          code: overrides.code ?? `achievement_${n}`,
          name: overrides.name ?? `Achievement ${n}`,
          description: overrides.description ?? `Do thing number ${n}.`,
          icon: overrides.icon ?? '🏆',
          category: overrides.category ?? 'combat',
          xp_reward: overrides.xp_reward ?? 100,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /** A plan change, as the billing side would make it; keys that follow their owner pick it up. */
    async setSubscription(userId: number, subscription: Subscription): Promise<void> {
      await k.updateTable('users').set({ subscription }).where('id', '=', userId).execute();
    },
  };
}

export type ContentFactories = ReturnType<typeof contentFactories>;

import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

export interface UserRow {
  id: number;
  username: string;
  level: number;
  total_xp: number;
  achievements_count: number;
  joined_at: number;
}

export interface UserStatsRow extends UserRow {
  forum_posts: number;
  tournaments_played: number;
}

const USER_COLUMNS = ['id', 'username', 'level', 'total_xp', 'achievements_count', 'joined_at'] as const;

export function usersRepo(db: Kysely<Database>) {
  return {
    findById(id: number): Promise<UserRow | undefined> {
      return db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).executeTakeFirst();
    },

    /** The user and their activity counters, in one round trip. */
    findStats(id: number): Promise<UserStatsRow | undefined> {
      return db
        .selectFrom('users as u')
        .select(USER_COLUMNS.map((c) => `u.${c}` as const))
        .select((eb) => [
          eb
            .selectFrom('forum_posts')
            .select(eb.fn.countAll<number>().as('n'))
            .whereRef('forum_posts.author_id', '=', 'u.id')
            .as('forum_posts'),
          eb
            .selectFrom('tournament_participants')
            .select(eb.fn.countAll<number>().as('n'))
            .whereRef('tournament_participants.user_id', '=', 'u.id')
            .as('tournaments_played'),
        ])
        .where('u.id', '=', id)
        .executeTakeFirst() as Promise<UserStatsRow | undefined>;
    },
  };
}

export type UsersRepo = ReturnType<typeof usersRepo>;

import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

export interface AchievementRow {
  id: number;
  name: string;
  description: string;
  icon: string;
  category: string;
  xp_reward: number;
}

export function achievementsRepo(db: Kysely<Database>) {
  return {
    /** The catalog by id, optionally one category (index `achievements_category`: category, id). */
    list(category?: string): Promise<AchievementRow[]> {
      let query = db
        .selectFrom('achievements')
        .select(['id', 'name', 'description', 'icon', 'category', 'xp_reward']);
      if (category !== undefined) query = query.where('category', '=', category);
      return query.orderBy('id').execute();
    },

    /** What one user unlocked, most recent first (primary key `user_achievements_pk`: user, achievement). */
    unlockedBy(userId: number): Promise<(AchievementRow & { unlocked_at: number })[]> {
      return db
        .selectFrom('user_achievements as ua')
        .innerJoin('achievements as a', 'a.id', 'ua.achievement_id')
        .select(['a.id', 'a.name', 'a.description', 'a.icon', 'a.category', 'a.xp_reward', 'ua.unlocked_at'])
        .where('ua.user_id', '=', userId)
        .orderBy('ua.unlocked_at', 'desc')
        .orderBy('a.id')
        .execute();
    },
  };
}

export type AchievementsRepo = ReturnType<typeof achievementsRepo>;

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
  };
}

export type AchievementsRepo = ReturnType<typeof achievementsRepo>;

import { Type, type Static } from 'typebox';
import { ACHIEVEMENT_CATEGORIES } from '../../engines/achievements.js';
import type { App } from '../../http/app-types.js';
import { publicRead } from '../../http/public-route.js';
import { Envelope, StringEnum } from '../../http/schemas.js';
import type { AchievementsRepo } from './repo.js';

export const AchievementSchema = Type.Object(
  {
    id: Type.Integer({ description: 'achievement ID', examples: [1] }),
    name: Type.String({ examples: ['First Blood'] }),
    description: Type.String({ examples: ['Get your first kill.'] }),
    icon: Type.String({ description: 'an emoji character', examples: ['🩸'] }),
    category: Type.String({
      description: `one of ${ACHIEVEMENT_CATEGORIES.join(', ')}`,
      examples: ['combat'],
    }),
    xp_reward: Type.Integer({ minimum: 0, description: 'XP granted on unlock', examples: [50] }),
  },
  { $id: 'Achievement', title: 'Achievement' },
);

export const AchievementsQuery = Type.Object({
  category: Type.Optional(
    StringEnum(ACHIEVEMENT_CATEGORIES, {
      description: 'Only achievements of this category.',
      examples: ['combat'],
    }),
  ),
});

export const AchievementsResponse = Envelope(
  'achievements',
  Type.Array(Type.Ref('Achievement')),
  'The achievement catalog',
);
export type AchievementsBody = { achievements: Static<typeof AchievementSchema>[] };

export function achievementsRoutes(repo: AchievementsRepo) {
  return (app: App): void => {
    app.addSchema(AchievementSchema);

    app.get(
      '/achievements',
      publicRead({
        operationId: 'achievements_list',
        tag: 'Achievements',
        summary: 'List achievements',
        description: `Every achievement a player can unlock, ordered by id. \`category\` keeps one category: one of ${ACHIEVEMENT_CATEGORIES.join(', ')}; any other value is rejected with 400.`,
        querystring: AchievementsQuery,
        response: AchievementsResponse,
      }),
      async (request): Promise<AchievementsBody> => {
        const rows = await repo.list(request.query.category);
        return {
          achievements: rows.map((row) => ({
            id: row.id,
            name: row.name,
            description: row.description,
            icon: row.icon,
            category: row.category,
            xp_reward: row.xp_reward,
          })),
        };
      },
    );
  };
}

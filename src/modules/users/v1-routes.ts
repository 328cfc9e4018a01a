import { Type, type Static } from 'typebox';
import { percent1 } from '../../engines/percent.js';
import type { App } from '../../http/app-types.js';
import { ProblemError } from '../../http/problem.js';
import { IdParam, Timestamp, toIso } from '../../http/schemas.js';
import { One, v1Route } from '../../http/v1-route.js';
import type { AchievementsRepo } from '../achievements/repo.js';
import { AchievementSchema } from '../achievements/routes.js';
import type { EloRepo } from '../elo/repo.js';
import { EloLadderEntrySchema } from '../elo/routes.js';
import type { KillboardRepo } from '../killboard/repo.js';
import { TopFragLeaderSchema } from '../killboard/routes.js';
import type { UsersRepo } from './repo.js';
import { userStats, UserStatsSchema } from './routes.js';

const game = (examples: string[]) => Type.String({ description: 'game code', examples });

export const V1UserStatsSchema = Type.Object(
  {
    user_id: Type.String({ description: 'the hub user id', examples: ['42'] }),
    ...UserStatsSchema.properties,
    elo: Type.Array(
      Type.Object({
        game: game(['cs2']),
        rank: Type.Integer({
          minimum: 1,
          description:
            'the user\u2019s place on the game\u2019s Elo ladder (`GET /api-platform/v1/stats/elo`): 1 is the highest rating, ties go to the lower user id; given for every rated player, beyond the ladder\u2019s top 200 too',
          examples: [1342],
        }),
        ...Type.Pick(EloLadderEntrySchema, ['rating', 'games', 'wins', 'win_pct']).properties,
      }),
      {
        description:
          'The user\u2019s Elo per game (cs2, cs16) where they have played a rated match, with their place on that game\u2019s ladder',
      },
    ),
    combat: Type.Array(
      Type.Object({
        game: game(['cs2']),
        kills: TopFragLeaderSchema.properties.kills,
        deaths: Type.Integer({ minimum: 0, examples: [640] }),
        ...Type.Pick(TopFragLeaderSchema, ['headshots', 'hs_pct']).properties,
      }),
      {
        description:
          'All-time kills, deaths and headshots per game (cs2, cs16, rust, minecraft) where the user has any: kills of a linked Minecraft or EOS identity (identity links) included',
      },
    ),
    unlocked_achievements: Type.Array(
      Type.Object({
        ...Type.Pick(AchievementSchema, ['id', 'name', 'icon', 'category']).properties,
        unlocked_at: Timestamp('when the user unlocked it'),
      }),
      { description: 'Achievements the user has unlocked, most recent first' },
    ),
  },
  {
    description: 'A user\u2019s stats: the published stats plus Elo, combat totals and unlocked achievements',
  },
);
export const V1UserStatsResponse = One(V1UserStatsSchema, 'A user\u2019s stats');
export type V1UserStatsBody = Static<typeof V1UserStatsResponse>;

export interface UserStatsSources {
  users: UsersRepo;
  elo: EloRepo;
  killboard: KillboardRepo;
  achievements: AchievementsRepo;
}

/** `GET /v1/users/:id/stats`: public stats of any user (`stats:read`, or an API key). */
export function userStatsV1Route(sources: UserStatsSources) {
  return (app: App): void => {
    app.get(
      '/users/:id/stats',
      v1Route({
        operationId: 'v1_users_stats_get',
        tag: 'Users',
        summary: 'Get a user\u2019s stats (preview)',
        description:
          'The stats of the published `GET /users/{id}/stats` (XP, level, activity counters) plus the user\u2019s Elo per game with their place on that game\u2019s ladder (`rank`, for every rated player: the published ladder lists only its top 200), all-time kills, deaths and headshots per game, and the achievements they unlocked. Public data: an API key (`Authorization: Bearer ghk_…`) may call it as well as an OAuth token with `stats:read`. An unknown user is 404 `user_not_found`.',
        scope: 'stats:read',
        cache: true,
        params: IdParam('User'),
        response: V1UserStatsResponse,
        errors: ['user_not_found'],
      }),
      async (request): Promise<V1UserStatsBody> => {
        const { id } = request.params;
        const [row, ratings, combat, unlocked] = await Promise.all([
          sources.users.findStats(id),
          sources.elo.ratingsOf(id),
          sources.killboard.combatTotals(id),
          sources.achievements.unlockedBy(id),
        ]);
        if (!row) throw new ProblemError('user_not_found', `There is no user with id ${id}.`);
        return {
          data: {
            user_id: String(row.id),
            ...userStats(row),
            elo: ratings.map((r) => ({ ...r, win_pct: percent1(r.wins, r.games) })),
            combat: combat.map((c) => ({ ...c, hs_pct: percent1(c.headshots, c.kills) })),
            unlocked_achievements: unlocked.map((a) => ({
              id: a.id,
              name: a.name,
              icon: a.icon,
              category: a.category,
              unlocked_at: toIso(a.unlocked_at),
            })),
          },
        };
      },
    );
  };
}

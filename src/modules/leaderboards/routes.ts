import { Type, type Static } from 'typebox';
import type { App } from '../../http/app-types.js';
import { publicRead } from '../../http/public-route.js';
import { Envelope, Limit } from '../../http/schemas.js';
import type { LeaderboardsRepo } from './repo.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 100;

export const LeaderboardEntrySchema = Type.Object(
  {
    rank: Type.Integer({ minimum: 1, description: 'position in this list, from 1', examples: [1] }),
    user_id: Type.Integer({ description: 'user ID', examples: [42] }),
    username: Type.String({ examples: ['NovaStrike'] }),
    level: Type.Integer({ minimum: 1, examples: [31] }),
    total_xp: Type.Integer({ minimum: 0, examples: [48210] }),
  },
  { $id: 'XpLeaderboardEntry', title: 'XpLeaderboardEntry' },
);

export const LeaderboardQuery = Type.Object({ limit: Type.Optional(Limit(DEFAULT_LIMIT, MAX_LIMIT)) });

export const LeaderboardResponse = Envelope(
  'leaderboard',
  Type.Array(Type.Ref('XpLeaderboardEntry')),
  'Top users by total XP',
);
export type LeaderboardBody = { leaderboard: Static<typeof LeaderboardEntrySchema>[] };

export function leaderboardsRoutes(repo: LeaderboardsRepo) {
  return (app: App): void => {
    app.addSchema(LeaderboardEntrySchema);

    app.get(
      '/leaderboards',
      publicRead({
        operationId: 'leaderboards_get',
        tag: 'Leaderboards',
        summary: 'Top users by total XP',
        description:
          'The XP leaderboard: users ranked by `total_xp`, highest first, at most 100. Users with equal XP are ordered by user id ascending, so ranks are stable; ranks are positions 1..n in this list (no shared ranks). Distinct from the ELO ladder (`/stats/elo`).',
        querystring: LeaderboardQuery,
        response: LeaderboardResponse,
      }),
      async (request): Promise<LeaderboardBody> => {
        const rows = await repo.topByXp(request.query.limit ?? DEFAULT_LIMIT);
        return {
          leaderboard: rows.map((row, i) => ({
            rank: i + 1,
            user_id: row.id,
            username: row.username,
            level: row.level,
            total_xp: row.total_xp,
          })),
        };
      },
    );
  };
}

import { Type, type Static } from 'typebox';
import { levelForXp, xpIntoLevel } from '../../engines/levels.js';
import type { App } from '../../http/app-types.js';
import { ProblemError } from '../../http/problem.js';
import { publicRead } from '../../http/public-route.js';
import { Envelope, IdParam, Timestamp, toIso } from '../../http/schemas.js';
import { avatarPath } from '../avatars/routes.js';
import type { UsersRepo, UserStatsRow } from './repo.js';

export const UserSchema = Type.Object(
  {
    id: Type.Integer({ description: 'user ID', examples: [42] }),
    username: Type.String({ examples: ['NovaStrike'] }),
    avatar: Type.String({
      description:
        'Path of the user\u2019s avatar, relative to the service\u2019s origin (for `https://hub.example.com/api-platform/v1` it is at `https://hub.example.com/avatars/42.png`): a 120×120 PNG generated from the user id, served without a key, cacheable for a week (`ETag`), embeddable from any site.',
      examples: ['/avatars/42.png'],
    }),
    level: Type.Integer({ minimum: 1, examples: [12] }),
    achievements_count: Type.Integer({ minimum: 0, examples: [7] }),
    joined: Timestamp('when the account was created'),
  },
  { $id: 'User', title: 'User' },
);

export const UserStatsSchema = Type.Object(
  {
    xp: Type.Integer({ minimum: 0, description: 'XP earned inside the current level', examples: [340] }),
    level: Type.Integer({ minimum: 1, examples: [12] }),
    total_xp: Type.Integer({ minimum: 0, examples: [6940] }),
    achievements: Type.Integer({ minimum: 0, description: 'achievements unlocked', examples: [7] }),
    forum_posts: Type.Integer({ minimum: 0, examples: [18] }),
    tournaments_played: Type.Integer({ minimum: 0, examples: [3] }),
  },
  { $id: 'UserStats', title: 'UserStats' },
);

export const UserResponse = Envelope('user', Type.Ref('User'), 'A public user profile');
export const UserStatsResponse = Envelope('stats', Type.Ref('UserStats'), 'A user\u2019s stats');
export type UserBody = { user: Static<typeof UserSchema> };
export type UserStatsBody = { stats: Static<typeof UserStatsSchema> };

/** The published stats of a user (also the first fields of `GET /v1/users/{id}/stats`). */
export const userStats = (row: UserStatsRow): Static<typeof UserStatsSchema> => ({
  xp: xpIntoLevel(row.total_xp),
  level: levelForXp(row.total_xp),
  total_xp: row.total_xp,
  achievements: row.achievements_count,
  forum_posts: row.forum_posts,
  tournaments_played: row.tournaments_played,
});

const notFound = (id: number) => new ProblemError('user_not_found', `There is no user with id ${id}.`);

export function usersRoutes(repo: UsersRepo) {
  return (app: App): void => {
    app.addSchema(UserSchema);
    app.addSchema(UserStatsSchema);

    app.get(
      '/users/:id',
      publicRead({
        operationId: 'users_get',
        tag: 'Users',
        summary: 'Get a public user profile',
        description: 'Returns the public profile of one hub user.',
        params: IdParam('User'),
        response: UserResponse,
        errors: ['user_not_found'],
      }),
      async (request): Promise<UserBody> => {
        const row = await repo.findById(request.params.id);
        if (!row) throw notFound(request.params.id);
        return {
          user: {
            id: row.id,
            username: row.username,
            avatar: avatarPath(row.id),
            level: row.level,
            achievements_count: row.achievements_count,
            joined: toIso(row.joined_at),
          },
        };
      },
    );

    app.get(
      '/users/:id/stats',
      publicRead({
        operationId: 'users_stats_get',
        tag: 'Users',
        summary: 'Get a user\u2019s stats',
        description:
          'XP, level and activity counters of one user. `level` follows the documented formula (reaching level L takes 50·L·(L−1) total XP); `xp` is the progress inside the current level.',
        params: IdParam('User'),
        response: UserStatsResponse,
        errors: ['user_not_found'],
      }),
      async (request): Promise<UserStatsBody> => {
        const row = await repo.findStats(request.params.id);
        if (!row) throw notFound(request.params.id);
        return { stats: userStats(row) };
      },
    );
  };
}

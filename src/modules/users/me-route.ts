import { Type, type Static } from 'typebox';
import { levelForXp } from '../../engines/levels.js';
import type { App } from '../../http/app-types.js';
import { ProblemError } from '../../http/problem.js';
import { Timestamp, toIso } from '../../http/schemas.js';
import { One, v1Route } from '../../http/v1-route.js';
import { avatarPath } from '../avatars/routes.js';
import type { UsersRepo } from './repo.js';

export const MeSchema = Type.Object(
  {
    id: Type.String({ description: 'the hub user id (the OpenID `sub`)', examples: ['42'] }),
    username: Type.String({ examples: ['NovaStrike'] }),
    avatar: Type.String({ description: 'path of the user\u2019s avatar PNG', examples: ['/avatars/42.png'] }),
    level: Type.Integer({ minimum: 1, examples: [12] }),
    total_xp: Type.Integer({ minimum: 0, examples: [6940] }),
    achievements_count: Type.Integer({ minimum: 0, examples: [7] }),
    joined: Timestamp('when the account was created'),
  },
  {
    $id: 'Me',
    title: 'Me',
    description: 'The signed-in user\u2019s profile; never a password, session or key.',
  },
);
export type MeBody = { data: Static<typeof MeSchema> };

/** `GET /v1/users/@me`: who the access token acts for (scope `identify`). */
export function meRoute(repo: UsersRepo) {
  return (app: App): void => {
    app.addSchema(MeSchema);
    app.get(
      '/users/@me',
      v1Route({
        operationId: 'v1_users_me_get',
        tag: 'Users',
        summary: 'Get the signed-in user',
        description:
          'The profile of the hub user the OAuth access token acts for. Needs a user\u2019s token with the `identify` scope: an API key or an app-only (client credentials) token is `403 user_context_required`.',
        scope: 'identify',
        userContext: true,
        response: One(Type.Ref('Me'), 'The signed-in user'),
        errors: ['user_not_found'],
      }),
      async (request): Promise<MeBody> => {
        const userId = request.principal?.userId;
        const row = userId ? await repo.findById(userId) : undefined;
        if (!row || !userId)
          throw new ProblemError('user_not_found', 'The user of this token no longer exists.');
        return {
          data: {
            id: String(row.id),
            username: row.username,
            avatar: avatarPath(row.id),
            level: levelForXp(row.total_xp),
            total_xp: row.total_xp,
            achievements_count: row.achievements_count,
            joined: toIso(row.joined_at),
          },
        };
      },
    );
  };
}

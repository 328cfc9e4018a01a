import { Type, type Static } from 'typebox';
import type { App } from '../../http/app-types.js';
import { ProblemError } from '../../http/problem.js';
import { Timestamp } from '../../http/schemas.js';
import type { Scope } from '../../http/scopes.js';
import type { AppsRepo } from '../apps/repo.js';
import { portalOperation } from '../portal/schemas.js';
import type { PortalAccount } from '../portal/session-auth.js';
import type { OAuthServer } from './server.js';
import { grantedScopes } from './store-repo.js';

export const AuthorizedAppSchema = Type.Object(
  {
    client_id: Type.String({ examples: ['app_0f3c…'] }),
    name: Type.String({ examples: ['Frag Tracker'] }),
    homepage_url: Type.Union([Type.String(), Type.Null()]),
    scopes: Type.Array(Type.String(), { description: 'what the user allowed', examples: [['identify']] }),
    granted: Timestamp('when the user first allowed it'),
    last_used: Type.Union([Timestamp('last API call with one of its tokens (to the minute)'), Type.Null()]),
  },
  { $id: 'AuthorizedApp', title: 'AuthorizedApp' },
);
export type AuthorizedApp = Static<typeof AuthorizedAppSchema>;

interface GrantPayload {
  iat?: number;
}

/** The apps a user has granted access, one entry per app (its grants merged). */
export async function authorizedAppsOf(
  oauth: OAuthServer,
  apps: AppsRepo,
  userId: number,
  now: number,
): Promise<AuthorizedApp[]> {
  const grants = await oauth.store.grantsOf(String(userId), now);
  const byClient = new Map<string, { scopes: Set<Scope>; granted: number; lastUsed: number | null }>();
  for (const grant of grants) {
    if (!grant.client_id) continue;
    const payload = JSON.parse(grant.payload) as GrantPayload;
    const entry = byClient.get(grant.client_id) ?? { scopes: new Set(), granted: Infinity, lastUsed: null };
    for (const scope of grantedScopes(grant.payload)) entry.scopes.add(scope);
    entry.granted = Math.min(entry.granted, (payload.iat ?? 0) * 1000);
    if (grant.last_used_at !== null) entry.lastUsed = Math.max(entry.lastUsed ?? 0, grant.last_used_at);
    byClient.set(grant.client_id, entry);
  }
  const rows = await apps.findByClientIds([...byClient.keys()]);
  return rows.flatMap((app) => {
    const entry = byClient.get(app.client_id);
    if (!entry) return [];
    return [
      {
        client_id: app.client_id,
        name: app.name,
        homepage_url: app.homepage_url,
        scopes: [...entry.scopes],
        granted: new Date(entry.granted).toISOString(),
        last_used: entry.lastUsed === null ? null : new Date(entry.lastUsed).toISOString(),
      },
    ];
  });
}

const signedIn = (account: PortalAccount | undefined): PortalAccount => {
  if (!account) throw new Error('portal route without session hook');
  return account;
};

const ClientIdParam = Type.Object({
  client_id: Type.String({ pattern: '^app_[0-9a-f]{32}$', description: 'the app\u2019s client_id' }),
});

/** "Authorized apps": what a hub user granted, and taking it back (session + CSRF on writes). */
export function authorizedAppRoutes(oauth: OAuthServer, apps: AppsRepo, now: () => number) {
  return (app: App): void => {
    app.addSchema(AuthorizedAppSchema);

    app.get(
      '/my-authorized-apps',
      {
        schema: portalOperation({
          operationId: 'developer_my_authorized_apps_list',
          summary: 'List the apps I authorized',
          description:
            'Every app holding a grant from the signed-in user: the scopes allowed, when, and when one of its tokens was last used (updated at most once a minute).',
          response: {
            200: Type.Object(
              { authorized_apps: Type.Array(Type.Ref('AuthorizedApp')) },
              { description: 'The apps with a grant' },
            ),
          },
          errors: ['unauthenticated'],
        }),
      },
      async (request) => ({
        authorized_apps: await authorizedAppsOf(oauth, apps, signedIn(request.account).id, now()),
      }),
    );

    app.delete(
      '/my-authorized-apps/:client_id',
      {
        schema: portalOperation({
          operationId: 'developer_my_authorized_apps_revoke',
          summary: 'Revoke an app I authorized',
          description:
            'Takes back every grant the user gave the app: its access and refresh tokens stop working, and the next API call with one is `401`. Signing in to the app again asks for consent again.',
          params: ClientIdParam,
          response: { 204: { type: 'null', description: 'Revoked' } },
          errors: ['invalid_parameter', 'unauthenticated', 'csrf_failed', 'not_found'],
        }),
      },
      async (request, reply) => {
        const revoked = await oauth.revokeGrantsOf(signedIn(request.account).id, request.params.client_id);
        if (revoked === 0) throw new ProblemError('not_found', 'You have not authorized that app.');
        return reply.code(204).send();
      },
    );
  };
}

import type { Db } from '../../src/db/connect.js';
import { appsRepo } from '../../src/modules/apps/repo.js';
import { OAuthServer } from '../../src/modules/oauth/server.js';
import { usersRepo } from '../../src/modules/users/repo.js';

/** Mints an access token of an app (its client id) acting for a user, with the given scopes. */
export type MintAccessToken = (clientId: string, userId: number, scope: string) => Promise<string>;

/**
 * Real access tokens of the service's authorization server (oidc-provider's AccessToken, saved
 * through the service's store as the code flow would), without a browser's consent round trip:
 * the `hub serve` reading the same database takes them as any token it issued.
 */
export async function accessTokenMinter(db: Db): Promise<MintAccessToken> {
  const oauth = await OAuthServer.create({
    db: db.kysely,
    issuer: 'http://localhost',
    apps: appsRepo(db.kysely),
    users: usersRepo(db.kysely),
    now: Date.now,
    trustProxy: false,
    onError: (err) => console.error(err),
  });
  return async (clientId, userId, scope) => {
    const client = await oauth.provider.Client.find(clientId);
    if (!client) throw new Error('the bench app is not a client of the authorization server');
    const accountId = String(userId);
    const grant = new oauth.provider.Grant({ accountId, clientId: client.clientId });
    grant.addOIDCScope(scope);
    const grantId = await grant.save();
    return new oauth.provider.AccessToken({ accountId, client, grantId, scope, gty: 'bench' }).save();
  };
}

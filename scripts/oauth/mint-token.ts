import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/types.js';
import { appsRepo } from '../../src/modules/apps/repo.js';
import { OAuthServer } from '../../src/modules/oauth/server.js';
import { usersRepo } from '../../src/modules/users/repo.js';

/** Mints an access token of `accountId` for the app `clientId` with `scope` (space-separated). */
export type MintToken = (clientId: string, accountId: string | number, scope: string) => Promise<string>;

/**
 * A minter of real OAuth access tokens, saved through the service's own store as the code flow
 * saves them (a grant, then the token), for tools that need a user's token without the browser
 * consent step: the benches and `npm run test:plugins`. `gty` is the grant type recorded on them.
 */
export async function tokenMinter(db: Kysely<Database>, gty = 'authorization_code'): Promise<MintToken> {
  const oauth = await OAuthServer.create({
    db,
    issuer: 'http://localhost',
    apps: appsRepo(db),
    users: usersRepo(db),
    now: Date.now,
    trustProxy: false,
    onError: (err) => console.error(err),
  });
  return async (clientId, account, scope) => {
    const client = await oauth.provider.Client.find(clientId);
    if (!client) throw new Error(`no app with client id ${clientId}`);
    const accountId = String(account);
    const grant = new oauth.provider.Grant({ accountId, clientId: client.clientId });
    grant.addOIDCScope(scope);
    const grantId = await grant.save();
    return new oauth.provider.AccessToken({ accountId, client, grantId, scope, gty }).save();
  };
}

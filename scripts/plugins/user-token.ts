// `node --import tsx scripts/plugins/user-token.ts <DATABASE_URL> <user id> <client id> <scopes>`:
// prints an OAuth access token of that user for that app, saved through the service's store as the
// code flow would save it (as bench/v1.ts mints them). test-plugins.mjs uses it for the /v1 calls
// its scenarios make (commands, link codes), so the run needs no browser consent step.
import { connect } from '../../src/db/connect.js';
import { appsRepo } from '../../src/modules/apps/repo.js';
import { OAuthServer } from '../../src/modules/oauth/server.js';
import { usersRepo } from '../../src/modules/users/repo.js';

const [databaseUrl, userId, clientId, scopes] = process.argv.slice(2);
if (!databaseUrl || !userId || !clientId || !scopes)
  throw new Error('usage: user-token.ts DATABASE_URL USER_ID CLIENT_ID "SCOPE ..."');
const db = connect(databaseUrl);
try {
  const oauth = await OAuthServer.create({
    db: db.kysely,
    issuer: 'http://localhost',
    apps: appsRepo(db.kysely),
    users: usersRepo(db.kysely),
    now: Date.now,
    trustProxy: false,
    onError: (err) => console.error(err),
  });
  const client = await oauth.provider.Client.find(clientId);
  if (!client) throw new Error(`no app with client id ${clientId}`);
  const grant = new oauth.provider.Grant({ accountId: userId, clientId: client.clientId });
  grant.addOIDCScope(scopes);
  const token = new oauth.provider.AccessToken({
    accountId: userId,
    client,
    grantId: await grant.save(),
    scope: scopes,
    gty: 'authorization_code',
  });
  console.log(await token.save());
} finally {
  await db.close();
}

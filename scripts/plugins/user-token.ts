// `node --import tsx scripts/plugins/user-token.ts <DATABASE_URL> <user id> <client id> <scopes>`:
// prints an OAuth access token of that user for that app, saved through the service's store as the
// code flow would save it (scripts/oauth/mint-token.ts). test-plugins.mjs uses it for the /v1 calls
// its scenarios make (commands, link codes), so the run needs no browser consent step.
import { connect } from '../../src/db/connect.js';
import { tokenMinter } from '../oauth/mint-token.js';

const [databaseUrl, userId, clientId, scopes] = process.argv.slice(2);
if (!databaseUrl || !userId || !clientId || !scopes)
  throw new Error('usage: user-token.ts DATABASE_URL USER_ID CLIENT_ID "SCOPE ..."');
const db = connect(databaseUrl);
try {
  const mint = await tokenMinter(db.kysely);
  console.log(await mint(clientId, userId, scopes));
} finally {
  await db.close();
}

/**
 * `node --import tsx bench/oauth.ts`: `GET /v1/servers` with OAuth access tokens against the
 * published `GET /servers` with API keys, same server, same run, paired rounds (see bench/api.ts).
 * The tokens are real ones from the token endpoint (client_credentials of partner-owned apps, one
 * per app so no (app, user) quota is reached); the check must beat 90% of the key's req/s, which
 * holds only if a token costs no database round trip per request (CachedAccessTokens).
 *
 *   node --import tsx bench/oauth.ts [-- --duration SEC --rounds N --connections N]
 */
import { API_PREFIX, OAUTH_TOKEN_PATH, V1_PREFIX } from '../src/http/paths.js';
import { countArgs } from './args.js';
import { compareLoads } from './load.js';
import { startService } from './processes.js';
import { partnerApps, partnerKeys, seededDb } from './setup.js';

const { duration, rounds, connections } = countArgs({ duration: 3, rounds: 5, connections: 50 });
const TARGET = 0.9;

const bench = await seededDb(2000, 1000, 1);
const keys = await partnerKeys(bench.db, 20_000 * duration * rounds);
// the apps' owner is a partner: each app's tokens get the partner quota per (app, user) pair
const clients = await partnerApps(bench.db, keys.length);
const service = await startService(bench.url, {});
try {
  const tokens: string[] = [];
  for (const { app, secret } of clients) {
    const res = await fetch(`${service.url}${OAUTH_TOKEN_PATH}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.client_id}:${secret ?? ''}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials&scope=servers:read',
    });
    const body = (await res.json()) as { access_token?: string };
    if (!body.access_token) throw new Error(`token endpoint: ${res.status} ${JSON.stringify(body)}`);
    tokens.push(body.access_token);
  }
  const probe = await fetch(`${service.url}${V1_PREFIX}/servers`, {
    headers: { authorization: `Bearer ${tokens[0] ?? ''}` },
  });
  if (probe.status !== 200)
    throw new Error(`GET /v1/servers with a token: ${probe.status} ${await probe.text()}`);
  const load = { connections, duration };
  const {
    target: token,
    baseline: key,
    ratio,
    rounds: perRound,
    bad,
  } = await compareLoads(
    rounds,
    { url: service.url, path: `${API_PREFIX}/servers`, options: { ...load, keys } },
    { url: service.url, path: `${V1_PREFIX}/servers`, options: { ...load, keys: tokens, bearer: true } },
  );
  console.log(
    `GET ${API_PREFIX}/servers (API key)      ${key.rps.toFixed(0)} req/s  p50 ${key.p50} ms  p99 ${key.p99} ms  bad ${key.bad}`,
  );
  console.log(
    `GET ${V1_PREFIX}/servers (OAuth token)         ${token.rps.toFixed(0)} req/s  p50 ${token.p50} ms  p99 ${token.p99} ms  bad ${token.bad}`,
  );
  console.log(
    `ratio ${(ratio * 100).toFixed(1)}% (rounds ${perRound.map((r) => (r * 100).toFixed(0)).join(', ')}%)  target ≥ ${TARGET * 100}%`,
  );
  if (bad > 0) {
    console.log('INVALID: non-2xx responses');
    process.exitCode = 1;
  } else if (ratio < TARGET) process.exitCode = 1;
} finally {
  await service.stop();
  await bench.drop();
}

/**
 * `node --import tsx bench/oauth.ts`: `GET /v1/servers` with OAuth access tokens against the
 * published `GET /servers` with API keys, same server, same run, paired rounds (see bench/api.ts).
 * The tokens are real ones from the token endpoint (client_credentials of partner-owned apps, one
 * per app so no (app, user) quota is reached); the check must beat 90% of the key's req/s, which
 * holds only if a token costs no database round trip per request (CachedAccessTokens).
 *
 *   node --import tsx bench/oauth.ts [-- --duration SEC --rounds N --connections N]
 */
import { parseArgs } from 'node:util';
import { API_PREFIX, OAUTH_TOKEN_PATH, V1_PREFIX } from '../src/http/paths.js';
import { appsRepo } from '../src/modules/apps/repo.js';
import { appsService } from '../src/modules/apps/service.js';
import { combineRounds, pairedRatios, runLoad, type LoadRun } from './load.js';
import { startService } from './processes.js';
import { partnerKeys, seededDb } from './setup.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
  },
});
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const TARGET = 0.9;

const bench = await seededDb(2000, 1000, 1);
const keys = await partnerKeys(bench.db, 20_000 * duration * rounds);
// the apps' owner is a partner: each app's tokens get the partner quota per (app, user) pair
const owner = await bench.db.kysely
  .insertInto('users')
  .values({ username: 'bench_owner', avatar: '', joined_at: Date.now(), password_hash: null, is_partner: 1 })
  .returning('id')
  .executeTakeFirstOrThrow();
const apps = appsService(appsRepo(bench.db.kysely), () => Promise.resolve(), Date.now);
const clients = await Promise.all(
  keys.map((_, i) =>
    apps.create(owner.id, {
      name: `bench ${i}`,
      kind: 'confidential',
      redirect_uris: ['http://127.0.0.1:9/cb'],
    }),
  ),
);
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
  const published: LoadRun[] = [];
  const preview: LoadRun[] = [];
  for (let round = 0; round < rounds; round++) {
    // alternate which goes first, so drift on a shared machine does not favour one side
    const runKey = async () =>
      published.push(await runLoad(service.url, `${API_PREFIX}/servers`, { ...load, keys }));
    const runToken = async () =>
      preview.push(
        await runLoad(service.url, `${V1_PREFIX}/servers`, { ...load, keys: tokens, bearer: true }),
      );
    if (round % 2 === 0) {
      await runKey();
      await runToken();
    } else {
      await runToken();
      await runKey();
    }
  }
  const key = combineRounds(service.url, published);
  const token = combineRounds(service.url, preview);
  const { ratio, rounds: perRound } = pairedRatios(preview, published);
  console.log(
    `GET ${API_PREFIX}/servers (API key)      ${key.rps.toFixed(0)} req/s  p50 ${key.p50} ms  p99 ${key.p99} ms  bad ${key.bad}`,
  );
  console.log(
    `GET ${V1_PREFIX}/servers (OAuth token)         ${token.rps.toFixed(0)} req/s  p50 ${token.p50} ms  p99 ${token.p99} ms  bad ${token.bad}`,
  );
  console.log(
    `ratio ${(ratio * 100).toFixed(1)}% (rounds ${perRound.map((r) => (r * 100).toFixed(0)).join(', ')}%)  target ≥ ${TARGET * 100}%`,
  );
  if (key.bad + token.bad > 0) {
    console.log('INVALID: non-2xx responses');
    process.exitCode = 1;
  } else if (ratio < TARGET) process.exitCode = 1;
} finally {
  await service.stop();
  await bench.drop();
}

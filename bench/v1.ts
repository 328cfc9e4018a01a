/**
 * `npm run bench:v1`: the /v1 reads against the published API's equivalent route as the baseline,
 * same `hub serve`, same run, paired alternating rounds (see bench/api.ts and bench/oauth.ts):
 *
 *   /v1/users/@me              OAuth user tokens (identify)           vs  /users/{id} with API keys
 *   /v1/users/{id}/stats       OAuth user tokens, and API keys        vs  /users/{id}/stats with API keys
 *   /v1/tournaments            OAuth user tokens, and API keys        vs  /tournaments with API keys
 *   /v1/servers                OAuth user tokens, and API keys        vs  /servers with API keys
 *
 * The user tokens are real access tokens of the authorization server (oidc-provider's AccessToken,
 * saved through the service's store as the code flow would), one per (app, user) pair so no
 * pair's quota is reached; API keys are sent as `Authorization: Bearer ghk_…` on /v1.
 *
 *   npm run bench:v1 [-- --duration SEC --rounds N --connections N]
 */
import { API_PREFIX, V1_PREFIX } from '../src/http/paths.js';
import { countArgs } from './args.js';
import { tokenMinter } from '../scripts/oauth/mint-token.js';
import { compareLoads } from './load.js';
import { startService } from './processes.js';
import { partnerApps, partnerKeys, seededDb } from './setup.js';

const { duration, rounds, connections } = countArgs({ duration: 3, rounds: 3, connections: 50 });
const SCOPES = 'identify stats:read tournaments:read servers:read';
const USER_ID = 42;

interface Case {
  name: string;
  /** the /v1 route and the published route measured against it */
  preview: string;
  published: string;
  credential: 'token' | 'key';
}

const CASES: Case[] = [
  { name: 'users/@me', preview: '/users/@me', published: `/users/${USER_ID}`, credential: 'token' },
  ...(['token', 'key'] as const).flatMap((credential) => [
    {
      name: 'users/{id}/stats',
      preview: `/users/${USER_ID}/stats`,
      published: `/users/${USER_ID}/stats`,
      credential,
    },
    { name: 'tournaments', preview: '/tournaments', published: '/tournaments', credential },
    { name: 'servers', preview: '/servers', published: '/servers', credential },
  ]),
];

const bench = await seededDb(2000, 20_000, 1);
const keys = await partnerKeys(bench.db, 20_000 * duration * rounds * CASES.length);
// one app per token, as bench/oauth.ts: each (app, user) pair has its own partner quota
const mint = await tokenMinter(bench.db.kysely, 'bench');
const tokens: string[] = [];
for (const created of await partnerApps(bench.db, keys.length))
  tokens.push(await mint(created.app.client_id, USER_ID, SCOPES));

const service = await startService(bench.url, {});
try {
  for (const c of CASES) {
    const credentials = c.credential === 'token' ? tokens : keys;
    const probe = await fetch(`${service.url}${V1_PREFIX}${c.preview}`, {
      headers: { authorization: `Bearer ${credentials[0] ?? ''}` },
    });
    if (probe.status !== 200)
      throw new Error(
        `GET ${V1_PREFIX}${c.preview} (${c.credential}): ${probe.status} ${await probe.text()}`,
      );
  }
  const load = { connections, duration };
  let invalid = false;
  console.log(
    `/v1 reads vs the published API, ${rounds} paired rounds of ${duration} s at ${connections} connections`,
  );
  for (const c of CASES) {
    const published = {
      url: service.url,
      path: `${API_PREFIX}${c.published}`,
      options: { ...load, keys },
    };
    const preview = {
      url: service.url,
      path: `${V1_PREFIX}${c.preview}`,
      options: { ...load, keys: c.credential === 'token' ? tokens : keys, bearer: true },
    };
    const { target: v1, baseline: base, ratio, bad } = await compareLoads(rounds, published, preview);
    invalid ||= bad > 0;
    const label = `${c.name} (${c.credential === 'token' ? 'OAuth token' : 'API key'})`;
    console.log(
      `${label.padEnd(32)} /v1 ${v1.rps.toFixed(0).padStart(6)} req/s p50 ${v1.p50} ms p99 ${v1.p99} ms | published ${base.rps
        .toFixed(0)
        .padStart(
          6,
        )} req/s p99 ${base.p99} ms | ratio ${(ratio * 100).toFixed(1)}%${bad ? ` | ${bad} BAD` : ''}`,
    );
  }
  if (invalid) {
    console.log('INVALID: non-2xx responses');
    process.exitCode = 1;
  }
} finally {
  await service.stop();
  await bench.drop();
}

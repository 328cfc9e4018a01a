/**
 * `npm run bench:economy`: coin transfers per second between random users, on SQLite and (with
 * TEST_DATABASE_URL or BENCH_DATABASE_URL) PostgreSQL, each figure beside a baseline measured in
 * the same run:
 *   - the service path: `economyService.transfer` (account rows locked, both legs written, the
 *     idempotency key recorded in the ledger) with 20 transfers in flight, no HTTP, with group commit
 *     (transfers that queue while one transaction is written share the next) against one
 *     transaction per transfer, in alternating rounds;
 *   - the HTTP path: `POST /v1/economy/transfer` through the whole pipeline (bearer token, scope,
 *     quota, Idempotency-Key, the answer stored with the transfer) at 20 connections with
 *     autocannon in a worker thread, each request a fresh key between random users, p50/p99 latency;
 *     against the pipeline's own ceiling: `GET /v1/economy/balance` with the same tokens.
 * Every user starts with plenty of coins, so every transfer should succeed; any non-2xx makes the
 * run INVALID (exit code 1).   Options: --duration SEC (default 3), --users N (default 100).
 */
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { buildApp } from '../src/app.js';
import type { Dialect } from '../src/db/connect.js';
import type { AccessTokenVerifier, VerifiedAccessToken } from '../src/http/access-tokens.js';
import { economyRepo } from '../src/modules/economy/repo.js';
import { countArgs } from './args.js';
import { runLoad } from './load.js';
import { economyService } from '../src/modules/economy/service.js';
import { factories } from '../test/helpers/factories.js';
import { openTestDb } from '../test/helpers/db.js';

const { duration: DURATION_S, users: USERS } = countArgs({ duration: 3, users: 100 });
const CONNECTIONS = 20;
const TARGET_SQLITE_PER_S = 2000;

/** The tokens of the bench's users, standing in for the OAuth server. */
class BenchTokens implements AccessTokenVerifier {
  readonly byToken = new Map<string, VerifiedAccessToken>();
  verify(token: string) {
    return this.byToken.get(token);
  }
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const autocannon = require(${JSON.stringify(createRequire(import.meta.url).resolve('autocannon'))});
const { url, users, connections, duration } = workerData;
let n = 0;
autocannon({
  url, connections, duration, pipelining: 1,
  requests: [{
    method: 'POST',
    path: '/v1/economy/transfer',
    setupRequest: (req) => {
      n++;
      const from = Math.floor(Math.random() * users.length);
      const to = (from + 1 + Math.floor(Math.random() * (users.length - 1))) % users.length;
      return { ...req, headers: { 'content-type': 'application/json', authorization: 'Bearer bench-' + from,
        'idempotency-key': 'bench-' + process.pid + '-' + n },
        body: JSON.stringify({ to_user_id: users[to], amount: 1 + (n % 20) }) };
    },
  }],
}).then(
  (raw) => {
    const r = autocannon.aggregateResult([raw], { url });
    parentPort.postMessage({ latency: { p50: r.latency.p50, p99: r.latency.p99 }, non2xx: r.non2xx,
      errors: r.errors, timeouts: r.timeouts, total: raw.totalCompletedRequests, duration: raw.duration });
  },
  (err) => parentPort.postMessage({ error: String(err) }),
);
`;

interface Figures {
  dialect: Dialect;
  /** the service path, with group commit and with one transaction per transfer (median rounds) */
  servicePerS: number;
  serviceOnePerS: number;
  httpPerS: number;
  p50: number;
  p99: number;
  /** the pipeline's ceiling: GET /v1/economy/balance, same tokens, same connections */
  ceilingPerS: number;
  bad: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
/** Rounds of each service-path variant, alternating which goes first. */
const SERVICE_ROUNDS = 3;

async function measure(dialect: Dialect): Promise<Figures> {
  const testDb = await openTestDb(dialect);
  try {
    const made = factories(testDb.db);
    const economy = economyService(economyRepo(testDb.db), Date.now);
    const onePerCommit = economyService(economyRepo(testDb.db, { transfersPerCommit: 1 }), Date.now);
    const tokens = new BenchTokens();
    const users: number[] = [];
    for (let i = 0; i < USERS; i++) {
      const { id } = await made.makeUser();
      users.push(id);
      await economy.grant(id, 100_000_000, 'bench');
      tokens.byToken.set(`bench-${i}`, {
        userId: id,
        appId: 1,
        clientId: 'bench',
        scopes: new Set(['economy:transfer', 'economy:read']),
        tier: 'partner',
        expiresAt: Date.now() + 3_600_000,
      });
    }
    const pick = () => {
      const from = Math.floor(Math.random() * USERS);
      const to = (from + 1 + Math.floor(Math.random() * (USERS - 1))) % USERS;
      return [users[from] ?? 0, users[to] ?? 0] as const;
    };

    // the service path: transfers per second with CONNECTIONS in flight
    let seq = 0;
    const serviceRun = async (service: typeof economy, seconds: number) => {
      let done = 0;
      const deadline = Date.now() + seconds * 1000;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (Date.now() < deadline) {
            const [from, to] = pick();
            await service.transfer(
              from,
              { to_user_id: to, amount: 1 + (seq % 20) },
              { owner: 'bench', key: `s-${seq++}` },
            );
            done++;
          }
        }),
      );
      return done / ((performance.now() - started) / 1000);
    };
    const grouped: number[] = [];
    const single: number[] = [];
    const roundSeconds = Math.max(1, DURATION_S / 2);
    for (let round = 0; round < SERVICE_ROUNDS; round++) {
      if (round % 2 === 0) single.push(await serviceRun(onePerCommit, roundSeconds));
      grouped.push(await serviceRun(economy, roundSeconds));
      if (round % 2 === 1) single.push(await serviceRun(onePerCommit, roundSeconds));
    }

    // the HTTP path
    const app = await buildApp({
      db: testDb.db,
      config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 0, TRUST_PROXY: false },
      accessTokens: tokens,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { url, users, connections: CONNECTIONS, duration: DURATION_S },
    });
    const result = await new Promise<{
      error?: string;
      latency: { p50: number; p99: number };
      non2xx: number;
      errors: number;
      timeouts: number;
      total: number;
      duration: number;
    }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    if (result.error) throw new Error(result.error);
    const ceiling = await runLoad(url, '/v1/economy/balance', {
      connections: CONNECTIONS,
      duration: DURATION_S,
      keys: users.map((_, i) => `bench-${i}`),
      bearer: true,
    });
    await app.close();
    const report = await economy.audit();
    if (!report.ok) throw new Error(`the ledger is not sound after the bench: ${JSON.stringify(report)}`);
    return {
      dialect,
      servicePerS: median(grouped),
      serviceOnePerS: median(single),
      httpPerS: result.total / result.duration,
      p50: result.latency.p50,
      p99: result.latency.p99,
      ceilingPerS: ceiling.rps,
      bad: result.non2xx + result.errors + result.timeouts + ceiling.bad,
    };
  } finally {
    await testDb.drop();
  }
}

const dialects: Dialect[] = ['sqlite'];
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (pgUrl) {
  process.env.TEST_DATABASE_URL = pgUrl;
  dialects.push('postgres');
}
let invalid = false;
const perS = (n: number) => `${n.toFixed(0).padStart(6)}/s`;
const met = (n: number) => (n >= TARGET_SQLITE_PER_S ? 'MET' : 'MISSED');
console.log(`economy bench: ${USERS} users, ${CONNECTIONS} in flight, ${DURATION_S} s per run`);
for (const dialect of dialects) {
  const f = await measure(dialect);
  invalid ||= f.bad > 0;
  console.log(
    `${dialect.padEnd(8)} service ${perS(f.servicePerS)} with group commit, ${perS(f.serviceOnePerS)} one transaction per transfer: x${(f.servicePerS / f.serviceOnePerS).toFixed(2)}`,
  );
  console.log(
    `         HTTP    ${perS(f.httpPerS)} transfers, p50 ${f.p50} ms, p99 ${f.p99} ms at ${CONNECTIONS} connections; ` +
      `the pipeline's ceiling (GET balance) ${perS(f.ceilingPerS)}: transfers at ${((100 * f.httpPerS) / f.ceilingPerS).toFixed(0)}% of it` +
      (f.bad ? ` | ${f.bad} BAD responses` : ''),
  );
  if (dialect === 'sqlite')
    console.log(
      `         target >= ${TARGET_SQLITE_PER_S}/s on SQLite: service path ${met(f.servicePerS)}, HTTP path ${met(f.httpPerS)}`,
    );
}
if (invalid) {
  console.log('INVALID: some requests were not answered 2xx');
  process.exit(1);
}

/**
 * `npm run bench:economy`: coin transfers per second between random users, on SQLite and (with
 * TEST_DATABASE_URL or BENCH_DATABASE_URL) PostgreSQL, measured twice:
 *   - the service path: `economyService.transfer` (idempotency key recorded in the ledger, account
 *     rows locked, both legs written) with 20 transfers in flight, no HTTP;
 *   - the HTTP path: `POST /v1/economy/transfer` through the whole pipeline (bearer token, scope,
 *     quota, Idempotency-Key claim and stored response) at 20 connections with autocannon, run in a
 *     worker thread, each request a fresh key between random users; p50/p99 latency.
 * Every user starts with plenty of coins, so every transfer should succeed; any non-2xx makes the
 * run INVALID (exit code 1).   Options: --duration SEC (default 3), --users N (default 100).
 */
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { buildApp } from '../src/app.js';
import type { Dialect } from '../src/db/connect.js';
import type { AccessTokenVerifier, VerifiedAccessToken } from '../src/http/access-tokens.js';
import { economyRepo } from '../src/modules/economy/repo.js';
import { economyService } from '../src/modules/economy/service.js';
import { factories } from '../test/helpers/factories.js';
import { openTestDb } from '../test/helpers/db.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '3' },
    users: { type: 'string', default: '100' },
  },
});
const DURATION_S = Number(values.duration);
const USERS = Number(values.users);
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
  servicePerS: number;
  httpPerS: number;
  p50: number;
  p99: number;
  bad: number;
}

async function measure(dialect: Dialect): Promise<Figures> {
  const testDb = await openTestDb(dialect);
  try {
    const made = factories(testDb.db);
    const economy = economyService(economyRepo(testDb.db), Date.now);
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
        scopes: new Set(['economy:transfer']),
        tier: 'partner',
        expiresAt: Date.now() + 3_600_000,
      });
    }
    const pick = () => {
      const from = Math.floor(Math.random() * USERS);
      const to = (from + 1 + Math.floor(Math.random() * (USERS - 1))) % USERS;
      return [users[from] ?? 0, users[to] ?? 0] as const;
    };

    // the service path
    let done = 0;
    let seq = 0;
    const deadline = Date.now() + DURATION_S * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (Date.now() < deadline) {
          const [from, to] = pick();
          await economy.transfer(
            from,
            { to_user_id: to, amount: 1 + (seq % 20) },
            { owner: 'bench', key: `s-${seq++}` },
          );
          done++;
        }
      }),
    );
    const servicePerS = done / ((performance.now() - started) / 1000);

    // the HTTP path
    const app = await buildApp({
      db: testDb.db,
      config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 0, TRUST_PROXY: false },
      accessTokens: tokens,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { url: `http://127.0.0.1:${port}`, users, connections: CONNECTIONS, duration: DURATION_S },
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
    await app.close();
    if (result.error) throw new Error(result.error);
    const report = await economy.audit();
    if (!report.ok) throw new Error(`the ledger is not sound after the bench: ${JSON.stringify(report)}`);
    return {
      dialect,
      servicePerS,
      httpPerS: result.total / result.duration,
      p50: result.latency.p50,
      p99: result.latency.p99,
      bad: result.non2xx + result.errors + result.timeouts,
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
console.log(`economy bench: ${USERS} users, ${CONNECTIONS} in flight, ${DURATION_S} s per run`);
for (const dialect of dialects) {
  const f = await measure(dialect);
  invalid ||= f.bad > 0;
  console.log(
    `${dialect.padEnd(8)} service ${f.servicePerS.toFixed(0).padStart(6)} transfers/s | HTTP ${f.httpPerS
      .toFixed(0)
      .padStart(
        6,
      )} transfers/s, p50 ${f.p50} ms, p99 ${f.p99} ms at ${CONNECTIONS} connections${f.bad ? ` | ${f.bad} BAD responses` : ''}`,
  );
  if (dialect === 'sqlite')
    console.log(
      `         target >= ${TARGET_SQLITE_PER_S}/s on SQLite: service path ${f.servicePerS >= TARGET_SQLITE_PER_S ? 'MET' : 'MISSED'}, HTTP path ${f.httpPerS >= TARGET_SQLITE_PER_S ? 'MET' : 'MISSED'}`,
    );
}
if (invalid) {
  console.log('INVALID: some transfers were not answered 201');
  process.exit(1);
}

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  HubApiError,
  HubClient,
  HubConnectionError,
  HubErrorCode,
  HubTimeoutError,
  USER_AGENT,
} from '../src/index.js';

// The transport's rules against a scripted server: what is retried, after how long, with which
// Idempotency-Key. (The same rules against the hub itself are conformance scenarios.)

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
let script: Handler[] = [];
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const next =
      script.shift() ?? ((_q, r) => r.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    next(req, res, body);
  });
});
let baseUrl = '';
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const problem =
  (status: number, code: string, headers: Record<string, string> = {}): Handler =>
  (_q, res) =>
    res.writeHead(status, { 'content-type': 'application/problem+json', ...headers }).end(
      JSON.stringify({
        type: `/p/${code}`,
        title: code,
        status,
        detail: `a ${code}`,
        instance: 'req-1',
        code,
      }),
    );
const ok =
  (body: unknown, headers: Record<string, string> = {}): Handler =>
  (_q, res) =>
    res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
/** The n-th request the server saw (failing the test when there is none). */
const nth = (n: number) => {
  const request = seen[n];
  assert.ok(request, `no request ${n}`);
  return request;
};
const drop: Handler = (req) => req.socket.destroy();

const client = (extra: Partial<ConstructorParameters<typeof HubClient>[0]> = {}) =>
  new HubClient({
    baseUrl,
    apiKey: 'ghk_test',
    retryTiming: { initialDelayMs: 10, maxDelayMs: 40 },
    ...extra,
  });

describe('transport', () => {
  it('waits Retry-After on a 429, then answers; the rate-limit state is the last response’s', async () => {
    seen.length = 0;
    script = [
      problem(429, 'rate_limited', { 'retry-after': '1' }),
      ok(
        { leaderboard: [] },
        { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '99', 'x-ratelimit-reset': '2000000000' },
      ),
    ];
    const started = Date.now();
    await client().get('/api-platform/v1/leaderboards');
    assert.ok(Date.now() - started >= 1000, 'retried before Retry-After');
    assert.equal(seen.length, 2);
    assert.equal(nth(0).headers['x-api-key'], 'ghk_test');
    assert.equal(nth(0).headers['user-agent'], USER_AGENT);
  });

  it('a Retry-After beyond maxRetryAfterMs is not waited for: the 429 is thrown at once', async () => {
    seen.length = 0;
    script = [problem(429, 'rate_limited', { 'retry-after': '3600' })];
    const error = await client()
      .get('/api-platform/v1/leaderboards')
      .catch((e: unknown) => e);
    assert.ok(error instanceof HubApiError);
    assert.equal(error.code, HubErrorCode.RateLimited);
    assert.equal(error.requestId, 'req-1');
    assert.equal(seen.length, 1);
  });

  it('a write with an Idempotency-Key is sent again after a dropped connection, with the same key', async () => {
    seen.length = 0;
    script = [drop, ok({ transfer_id: 't1' })];
    const answer = await client({ apiKey: undefined }).post('/v1/economy/transfer', {
      body: { to_user_id: 2, amount: 5 },
    });
    assert.deepEqual(answer, { transfer_id: 't1' });
    assert.equal(seen.length, 2);
    assert.match(String(nth(0).headers['idempotency-key']), /^[0-9a-f-]{36}$/);
    assert.equal(nth(1).headers['idempotency-key'], nth(0).headers['idempotency-key']);
    assert.equal(nth(1).body, nth(0).body);
  });

  it('a write without an Idempotency-Key is never sent twice', async () => {
    seen.length = 0;
    script = [problem(503, 'service_unavailable', { 'retry-after': '0' })];
    const error = await client()
      .post('/api-platform/developer/session', { body: { username: 'a', password: 'b' } })
      .catch((e: unknown) => e);
    assert.ok(error instanceof HubApiError && error.status === 503);
    assert.equal(seen.length, 1);
  });

  it('502 and 504 are retried with backoff up to maxRetries (per call), then thrown', async () => {
    seen.length = 0;
    script = [problem(502, 'bad_gateway'), problem(504, 'gateway_timeout'), problem(502, 'bad_gateway')];
    const error = await client()
      .get('/api-platform/v1/leaderboards', { maxRetries: 1 })
      .catch((e: unknown) => e);
    assert.ok(error instanceof HubApiError && error.status === 504);
    assert.equal(seen.length, 2);
    script = [];
  });

  it('a silent server is a HubTimeoutError; a closed port a HubConnectionError', async () => {
    script = [() => undefined];
    const slow = await client({ maxRetries: 0, timeoutMs: 200 })
      .get('/api-platform/v1/leaderboards')
      .catch((e: unknown) => e);
    assert.ok(slow instanceof HubTimeoutError, String(slow));
    server.closeIdleConnections();
    const closed = await new HubClient({ baseUrl: 'http://127.0.0.1:9', maxRetries: 0 })
      .get('/api-platform/v1/leaderboards')
      .catch((e: unknown) => e);
    assert.ok(closed instanceof HubConnectionError, String(closed));
  });

  it('sends an API key as a bearer token on /v1 and x-api-key on the published API', async () => {
    seen.length = 0;
    script = [ok({ data: [], meta: { total: 0, page: 1, per_page: 25 } }), ok({ leaderboard: [] })];
    const hub = client();
    await hub.get('/v1/tournaments');
    await hub.get('/api-platform/v1/leaderboards');
    assert.equal(nth(0).headers.authorization, 'Bearer ghk_test');
    assert.equal(nth(0).headers['x-api-key'], undefined);
    assert.equal(nth(1).headers['x-api-key'], 'ghk_test');
    assert.equal(nth(1).headers.authorization, undefined);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../src/app.js';
import { generateKey } from '../src/modules/keys/key-format.js';
import { openTestDb, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { registerServer } from './helpers/ingest.js';
import { PORTAL, sessionFrom } from './helpers/portal.js';

/**
 * Secrets a client sends (keys, tokens, passwords, session cookies), valid or not, in headers,
 * bodies, paths and query strings, never come back in an answer and never reach a log line.
 */
describe('secrets are never echoed in answers or logs', () => {
  let testDb: TestDb;
  let app: FastifyInstance;
  const lines: string[] = [];
  before(async () => {
    testDb = await openTestDb('sqlite');
    app = await buildApp({
      db: testDb.db,
      config: { LOG_LEVEL: 'trace', CACHE_TTL_MS: 0, TRUST_PROXY: false },
      logStream: { write: (line: string) => lines.push(line) },
    });
  });
  after(async () => {
    await app.close();
    await testDb.drop();
  });

  it('keeps every secret of 30 kinds of request out of answers and log lines', async () => {
    const made = factories(testDb.db);
    const { secret: key } = await made.makeKey();
    const unknownKey = generateKey();
    const server = await registerServer(testDb.db, 'cs2');
    const wrongToken = '98765432109876543210987654321098';
    const password = 'Zebra-Quartz-Marmalade-1';
    const longPassword = `Very-Secret-Long-Password-${'x'.repeat(1100)}`;
    const signUp = await app.inject({
      method: 'POST',
      url: `${PORTAL}/accounts`,
      payload: { username: 'secretive', password },
      remoteAddress: '203.0.113.9',
    });
    assert.equal(signUp.statusCode, 201, signUp.body);
    const session = sessionFrom({ inject: (o: InjectOptions) => app.inject(o) } as never, signUp);
    const sessionId = session.cookie.split('=')[1] ?? '';
    const created = await session.call('POST', '/keys', { name: 'mine' });
    const portalKey = created.json<{ secret: string }>().secret;
    const secrets = [
      key,
      unknownKey,
      server.token,
      wrongToken,
      password,
      'Very-Secret-Long-Password',
      sessionId,
      session.csrf,
      portalKey,
    ];

    lines.length = 0;
    const V1 = '/api-platform/v1';
    const requests: (InjectOptions & { url: string })[] = [
      { url: `${V1}/leaderboards`, headers: { 'x-api-key': key } },
      { url: `${V1}/leaderboards`, headers: { 'x-api-key': unknownKey } },
      { url: `${V1}/leaderboards?limit=0`, headers: { 'x-api-key': key } },
      { url: `${V1}/leaderboards?api_key=${key}&limit=1`, headers: { 'x-api-key': key } },
      { url: `${V1}/leaderboards?token=${server.token}`, headers: { 'x-api-key': key } },
      { url: `${V1}/users/${unknownKey}`, headers: { 'x-api-key': key } },
      { url: '/v1/tournaments', headers: { authorization: `Bearer ${key}` } },
      { url: '/v1/tournaments', headers: { authorization: `Bearer ${unknownKey}` } },
      { url: '/v1/tournaments', headers: { authorization: `Bearer ${wrongToken}` } },
      { method: 'POST', url: `${V1}/leaderboards`, headers: { 'x-api-key': key } },
      {
        method: 'POST',
        url: '/api-platform/ingest/logs',
        headers: { authorization: `Bearer ${server.token}` },
        payload: 'garbage',
      },
      {
        method: 'POST',
        url: '/api-platform/ingest/logs',
        headers: { authorization: `Bearer ${wrongToken}` },
        payload: 'x',
      },
      {
        method: 'POST',
        url: `/api-platform/ingest/logs/${server.token}`,
        headers: { 'content-type': 'text/plain' },
        payload: 'x',
      },
      {
        method: 'POST',
        url: `/api-platform/ingest/logs/${wrongToken}`,
        headers: { 'content-type': 'text/plain' },
        payload: 'x',
      },
      { method: 'GET', url: `/api-platform/ingest/logs/${server.token}` },
      { method: 'DELETE', url: `/api-platform/ingest/logs/${wrongToken}?x=1` },
      {
        method: 'POST',
        url: '/api-platform/ingest/events',
        headers: { authorization: `Bearer ${server.token}` },
        payload: { events: 'no' },
      },
      {
        method: 'POST',
        url: `${PORTAL}/session`,
        payload: { username: 'secretive', password: `${password}x` },
      },
      {
        method: 'POST',
        url: `${PORTAL}/session`,
        payload: { username: 'secretive', password: longPassword },
      },
      { method: 'POST', url: `${PORTAL}/session`, payload: { username: password, password } },
      {
        method: 'POST',
        url: `${PORTAL}/accounts`,
        payload: { username: 'other_one', password: longPassword },
      },
      { method: 'POST', url: `${PORTAL}/accounts`, payload: { username: 'other_two', password: 'short' } },
      {
        method: 'POST',
        url: `${PORTAL}/accounts`,
        payload: { username: 'Zebra', password: `zebra-${password}` },
      },
      { method: 'POST', url: `${PORTAL}/accounts`, payload: { username: 'x', password, extra: password } },
      { method: 'GET', url: `${PORTAL}/session`, headers: { cookie: session.cookie } },
      { method: 'GET', url: `${PORTAL}/my-keys`, headers: { cookie: session.cookie } },
      {
        method: 'POST',
        url: `${PORTAL}/keys`,
        headers: { cookie: session.cookie, 'x-csrf-token': `${session.csrf}x` },
        payload: { name: 'y' },
      },
      {
        method: 'POST',
        url: `${PORTAL}/keys`,
        headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
        payload: { name: password.repeat(10) },
      },
      {
        method: 'POST',
        url: `${PORTAL}/sign-in`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `username=secretive&password=${password}`,
      },
      { method: 'GET', url: `${PORTAL}/keys`, headers: { cookie: session.cookie } },
    ];
    for (const request of requests) {
      const res = await app.inject({ method: 'GET', ...request, remoteAddress: '198.51.100.200' });
      assert.ok(
        res.statusCode < 500,
        `${request.method ?? 'GET'} ${request.url}: ${res.statusCode} ${res.body}`,
      );
      for (const secret of secrets) {
        // a portal page may show the account's own CSRF token (its forms need it); nothing else
        if (secret === session.csrf && res.headers['content-type']?.toString().startsWith('text/html'))
          continue;
        if (secret === session.csrf && request.url === `${PORTAL}/session` && res.statusCode === 200)
          continue;
        assert.ok(
          !res.body.includes(secret),
          `${request.url} echoed ${secret.slice(0, 8)}…: ${res.body.slice(0, 300)}`,
        );
        for (const [name, value] of Object.entries(res.headers))
          if (name !== 'set-cookie')
            assert.ok(!String(value).includes(secret), `${request.url}: header ${name}`);
      }
    }
    assert.ok(lines.length >= requests.length, `only ${lines.length} log lines`);
    const logged = lines.join('\n');
    for (const secret of secrets)
      assert.ok(!logged.includes(secret), `a log line holds ${secret.slice(0, 8)}…`);
    assert.match(logged, /api_key=\[redacted\]/);
  });
});

// The scenarios that need more than a call: retries under the proxy's faults, OAuth, webhooks
// and the stream. Each throws (an assertion) when the library does not do what the scenario says.
import {
  HubApiError,
  HubClient,
  HubConnectionError,
  HubDecodeError,
  HubErrorCode,
  OAuthError,
  WebhookVerificationError,
  WebhookVerifier,
  type HubEvent,
  type OAuthTokens,
} from '../src/index.js';
import assert from './assert.js';
import {
  aliceClient,
  clientFor,
  deliveries,
  fixture,
  newInbox,
  proxySaw,
  signIn,
  webhookVectors,
} from './harness.js';

type Custom = (name: string) => Promise<void>;

const refusedWith = async (promise: Promise<unknown>, code: string) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof OAuthError, `expected ${code}, got ${String(error)}`);
  assert.equal(error.error, code);
};

const balanceOf = async (hub: HubClient) => (await hub.get('/v1/economy/balance')).data.balance;
const transfer = (hub: HubClient, amount: number) =>
  hub.post('/v1/economy/transfer', { body: { to_user_id: fixture.users.bob.id, amount } });

export const CUSTOM: Record<string, Custom> = {
  async 'rate_limit.state'(name) {
    const hub = clientFor(name);
    await hub.get('/api-platform/v1/leaderboards', { params: { query: { limit: 1 } } });
    const state = hub.rateLimit;
    assert.ok(state, 'no rate-limit state');
    assert.ok(state.limit > 0 && state.remaining <= state.limit);
    const ahead = state.reset.getTime() - Date.now();
    assert.ok(ahead > -1000 && ahead <= 3_601_000, `reset ${state.reset.toISOString()}`);
  },

  async 'conditional.etag'(name) {
    const hub = clientFor(name);
    const init = { params: { query: { limit: 3 } } };
    const first = await hub.getIfChanged('/api-platform/v1/leaderboards', undefined, init);
    assert.ok(!first.notModified && first.etag, 'the first answer has data and an ETag');
    const second = await hub.getIfChanged('/api-platform/v1/leaderboards', first.etag, init);
    assert.ok(second.notModified, 'the second answer is not modified');
  },

  async 'retry.429_retry_after'(name) {
    const started = Date.now();
    await clientFor(name).get('/api-platform/v1/leaderboards');
    assert.ok(Date.now() - started >= 1000, 'retried before Retry-After');
    assert.equal((await proxySaw(name)).length, 2);
  },

  async 'retry.gateway_backoff'(name) {
    await clientFor(name, { maxRetries: 2 }).get('/api-platform/v1/achievements');
    assert.equal((await proxySaw(name)).length, 3);
  },

  async 'retry.write_without_key_not_retried'(name) {
    const { username, password } = fixture.users.alice;
    const error = await clientFor(name)
      .post('/api-platform/developer/session', { body: { username, password } })
      .catch((e: unknown) => e);
    assert.ok(error instanceof HubApiError && error.status === 503, String(error));
    assert.equal(error.code, HubErrorCode.ServiceUnavailable);
    assert.equal((await proxySaw(name)).length, 1);
  },

  async 'idempotency.transfer_after_dropped_connection'(name) {
    const alice = await aliceClient(name, 'economy:read economy:transfer');
    const before = await balanceOf(alice);
    const answer = await transfer(alice, 7);
    assert.equal(answer.data.amount, 7);
    assert.equal(await balanceOf(alice), before - 7, 'the coins moved once');
    const posts = (await proxySaw(name)).filter(
      (r) => r.method === 'POST' && r.path === '/v1/economy/transfer',
    );
    assert.equal(posts.length, 2, 'sent again after the dropped connection');
    assert.ok(
      posts[0]?.idempotency_key && posts[0].idempotency_key === posts[1]?.idempotency_key,
      'same key',
    );
  },

  async 'oauth.code_flow_pkce'(name) {
    const { tokens, oauth } = await signIn(name, 'identify offline_access');
    assert.ok(tokens.accessToken && tokens.refreshToken, 'access and refresh token');
    const hub = clientFor(name, { apiKey: undefined, oauth: { tokens, client: oauth } });
    assert.equal((await hub.get('/v1/users/@me')).data.id, String(fixture.users.alice.id));
  },

  async 'oauth.refresh_rotation'(name) {
    const { tokens, oauth } = await signIn(name, 'identify offline_access');
    const handed: OAuthTokens[] = [];
    const hub = clientFor(name, {
      apiKey: undefined,
      oauth: {
        tokens: { ...tokens, expiresAt: Date.now() - 1000 },
        client: oauth,
        onTokens: (t) => void handed.push(t),
      },
    });
    assert.equal((await hub.get('/v1/users/@me')).data.id, String(fixture.users.alice.id));
    assert.equal(handed.length, 1, 'the new tokens were handed over once');
    assert.ok(
      handed[0]?.refreshToken && handed[0].refreshToken !== tokens.refreshToken,
      'a new refresh token',
    );
    await refusedWith(oauth.refresh(tokens.refreshToken ?? ''), 'invalid_grant');
  },

  async 'oauth.revoke'(name) {
    const { tokens, oauth } = await signIn(name, 'identify offline_access');
    await oauth.revoke(tokens.refreshToken ?? '', 'refresh_token');
    await refusedWith(oauth.refresh(tokens.refreshToken ?? ''), 'invalid_grant');
  },

  async 'webhooks.vectors'() {
    for (const v of webhookVectors) {
      const verifier = new WebhookVerifier(v.secrets, { now: () => v.now * 1000 });
      const accepted = await verifier.verify(v.body, v.headers).then(
        () => true,
        (e: unknown) => (e instanceof WebhookVerificationError ? false : Promise.reject(e as Error)),
      );
      assert.equal(accepted, v.valid, v.name);
    }
  },

  async 'webhooks.real_delivery'(name) {
    const alice = await aliceClient(name, 'economy:read economy:transfer webhooks:read webhooks:write');
    const inbox = await newInbox();
    const created = await alice.post('/v1/webhooks', {
      body: { url: inbox.url, events: ['economy.transfer.created'] },
    });
    const secret = created.data.secret;
    assert.ok(secret, 'the creation answer carries the secret');
    await transfer(alice, 3);
    const [delivery] = await deliveries(inbox.id);
    assert.ok(delivery, 'no delivery within 20 s');
    const verifier = new WebhookVerifier(secret);
    const event = await verifier.parse(delivery.body, delivery.headers);
    assert.equal(event.type, 'economy.transfer.created');
    assert.equal(event.data.amount, 3); // typed: the assertion above narrowed the event
    const tampered = await verifier
      .verify(delivery.body.replace('"amount":3', '"amount":300'), delivery.headers)
      .then(
        () => 'accepted',
        (e: unknown) => (e instanceof WebhookVerificationError ? 'refused' : String(e)),
      );
    assert.equal(tampered, 'refused');
  },

  async 'stream.resume_after_disconnect'(name) {
    const alice = await aliceClient(name, 'economy:read economy:transfer');
    await transfer(alice, 1); // an event to put the cursor on
    let cursor: string | undefined;
    for await (const event of alice.paginate('/v1/events', { params: { query: { limit: 1000 } } }))
      cursor = event.id;
    assert.ok(cursor, 'the pull route lists the warm-up transfer');
    for (let i = 0; i < 3; i++) await transfer(alice, 1);
    const types = ['economy.transfer.created'];
    const seen: HubEvent[] = [];
    const stream = alice.events({ types, after: cursor, signal: AbortSignal.timeout(20_000) });
    for await (const event of stream) {
      seen.push(event);
      if (seen.length === 3) break;
    }
    const ids = seen.map((e) => e.id);
    assert.equal(ids.length, 3, `3 events, got ${ids.join(', ')}`);
    assert.deepEqual([...ids].sort(), ids, 'in order');
    assert.equal(new Set(ids).size, 3, 'no duplicate');
    const pulled: string[] = [];
    for await (const event of alice.paginate('/v1/events', {
      params: { query: { after: cursor, types: types.join(',') } },
    }))
      pulled.push(event.id);
    assert.deepEqual(ids, pulled, 'the same events as the pull route');
    const opens = (await proxySaw(name)).filter((r) => r.path === '/v1/events/stream');
    assert.equal(opens.length, 2, 'reconnected once');
    assert.equal(opens[1]?.last_event_id, ids[0], 'with Last-Event-ID');
  },

  async 'errors.transport_distinct'(name) {
    const closed = await new HubClient({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: fixture.api_key,
      maxRetries: 0,
    })
      .get('/api-platform/v1/servers')
      .catch((e: unknown) => e);
    assert.ok(closed instanceof HubConnectionError, String(closed));
    const garbled = await clientFor(name)
      .get('/api-platform/v1/servers')
      .catch((e: unknown) => e);
    assert.ok(garbled instanceof HubDecodeError, String(garbled));
  },
};

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Problem } from '../src/http/problem.js';
import { emitEvents } from '../src/modules/events/outbox.js';
import { webhookDispatcher } from '../src/modules/webhooks/dispatch.js';
import { webhooksRepo } from '../src/modules/webhooks/repo.js';
import type { DeliveryBody, WebhookBody } from '../src/modules/webhooks/schemas.js';
import { ROTATION_OVERLAP_MS } from '../src/modules/webhooks/secret.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { registerApp } from './helpers/oauth.js';
import { TokenTable, userToken } from './helpers/token-table.js';

interface Created {
  data: { webhook: WebhookBody; secret: string };
}

/**
 * /v1/webhooks: subscriptions of an app (or of an API key's owner), the secret shown once and
 * rotated with a 24 h overlap, another owner's webhook 404, scopes, idempotent writes, the
 * delivery log with redeliver, and replay.
 */
for (const dialect of testDialects()) {
  describe(`/v1/webhooks (${dialect})`, () => {
    let ctx: TestContext;
    const tokens = new TokenTable();
    let ownerKey: string;
    let keyCounter = 0;

    before(async () => {
      ctx = await createTestContext(dialect, { accessTokens: tokens });
      const dev = await ctx.makeUser();
      const rival = await ctx.makeUser();
      const appA = await registerApp(ctx, dev.id);
      const appB = await registerApp(ctx, rival.id);
      const both = ['webhooks:read', 'webhooks:write'] as const;
      const app = (id: number, scopes: readonly ('webhooks:read' | 'webhooks:write')[]) =>
        userToken([...scopes], { appId: id, userId: null, tier: 'partner' });
      tokens.tokens.set('a', app(appA.id, both));
      tokens.tokens.set('a-read', app(appA.id, ['webhooks:read']));
      tokens.tokens.set('a-user', userToken([...both], { appId: appA.id, userId: dev.id, tier: 'partner' }));
      tokens.tokens.set('b', app(appB.id, both));
      ownerKey = (await ctx.makeKey({ userId: dev.id, tier: 'partner' })).secret;
    });
    after(() => ctx.close());

    const call = (
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      url: string,
      token: string,
      payload?: unknown,
      idempotencyKey?: string,
    ) =>
      ctx.inject({
        method,
        url: `/v1${url}`,
        headers: {
          authorization: `Bearer ${token}`,
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      });
    const create = async (
      token = 'a',
      body: unknown = { url: 'https://example.com/hook', events: ['*'] },
    ) => {
      const res = await call('POST', '/webhooks', token, body, `k-${++keyCounter}`);
      assert.equal(res.statusCode, 201, res.body);
      return res.json<Created>().data;
    };
    const problemOf = (res: LightMyRequestResponse, status: number, code: string) => {
      assert.equal(res.statusCode, status, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(res.json<Problem>().code, code, res.body);
    };
    const count = async () =>
      Number(
        (
          await ctx.testDb.db.kysely
            .selectFrom('webhooks')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('registers a webhook and shows its secret once, never again', async () => {
      const { webhook, secret } = await create('a', {
        url: 'https://example.com/hooks/hub',
        events: ['match.ended', 'player.level_up', 'match.ended'],
        description: ' production ',
      });
      assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
      assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
      assert.deepEqual(webhook.events, ['match.ended', 'player.level_up']);
      assert.equal(webhook.description, 'production');
      assert.equal(webhook.enabled, true);
      const reads = [
        await call('GET', `/webhooks/${webhook.id}`, 'a'),
        await call('GET', '/webhooks', 'a'),
        await call('PATCH', `/webhooks/${webhook.id}`, 'a', { description: 'x' }),
      ];
      for (const res of reads) {
        assert.equal(res.statusCode, 200, res.body);
        assert.ok(!res.body.includes(secret.slice(6, 20)), 'the secret is not shown again');
      }
      const listed = reads[1]?.json<{ data: WebhookBody[]; meta: { total: number } }>();
      assert.ok(listed?.data.some((w) => w.id === webhook.id));
      // it is kept for signing
      assert.deepEqual(await webhooksRepo(ctx.testDb.db.kysely).liveSecrets(webhook.id, Date.now()), [
        secret,
      ]);
    });

    it('refuses a bad URL, an unknown event type or a malformed body, and creates nothing', async () => {
      const before = await count();
      for (const url of [
        'http://example.com/hook',
        'ftp://example.com/x',
        'not a url',
        'https://u:p@example.com/',
      ]) {
        problemOf(await call('POST', '/webhooks', 'a', { url, events: ['*'] }), 422, 'invalid_webhook_url');
      }
      problemOf(
        await call('POST', '/webhooks', 'a', { url: 'https://example.com/h', events: ['Not A Type'] }),
        422,
        'unknown_event_type',
      );
      problemOf(
        await call('POST', '/webhooks', 'a', { url: 'https://example.com/h', events: [] }),
        400,
        'invalid_body',
      );
      assert.equal(await count(), before);
    });

    it('keeps each owner to its own webhooks: another owner gets 404, as for an unknown id', async () => {
      const { webhook } = await create('a');
      const { webhook: keyHook } = await create(ownerKey);
      // the app's user-context token acts for the same app
      assert.equal((await call('GET', `/webhooks/${webhook.id}`, 'a-user')).statusCode, 200);
      const attempts: [string, string, unknown?][] = [
        ['GET', `/webhooks/${webhook.id}`],
        ['PATCH', `/webhooks/${webhook.id}`, { enabled: false }],
        ['DELETE', `/webhooks/${webhook.id}`],
        ['POST', `/webhooks/${webhook.id}/rotate-secret`],
        ['GET', `/webhooks/${webhook.id}/deliveries`],
        ['POST', `/webhooks/${webhook.id}/deliveries/1/redeliver`],
        ['POST', `/webhooks/${webhook.id}/replay`, { since: new Date().toISOString() }],
      ];
      for (const [method, url, body] of attempts) {
        problemOf(await call(method as 'GET', url, 'b', body), 404, 'webhook_not_found');
        problemOf(await call(method as 'GET', url, ownerKey, body), 404, 'webhook_not_found');
        problemOf(
          await call(method as 'GET', url.replace(String(webhook.id), '999999'), 'a', body),
          404,
          'webhook_not_found',
        );
      }
      problemOf(await call('GET', `/webhooks/${keyHook.id}`, 'a'), 404, 'webhook_not_found');
      const listB = (await call('GET', '/webhooks', 'b')).json<{ data: WebhookBody[] }>();
      assert.ok(!listB.data.some((w) => w.id === webhook.id || w.id === keyHook.id));
      const still = (await call('GET', `/webhooks/${webhook.id}`, 'a')).json<{ data: WebhookBody }>();
      assert.equal(still.data.enabled, true, 'nothing changed');
      // an operator's key of no account owns no webhooks
      problemOf(await call('GET', '/webhooks', ctx.key), 422, 'unprocessable');
    });

    it('needs webhooks:write to change anything', async () => {
      const { webhook } = await create('a');
      const refused = await call('POST', '/webhooks', 'a-read', {
        url: 'https://example.com/h',
        events: ['*'],
      });
      problemOf(refused, 403, 'insufficient_scope');
      problemOf(await call('DELETE', `/webhooks/${webhook.id}`, 'a-read'), 403, 'insufficient_scope');
      assert.equal((await call('GET', `/webhooks/${webhook.id}`, 'a-read')).statusCode, 200);
    });

    it('creates once for one Idempotency-Key', async () => {
      const before = await count();
      const body = { url: 'https://example.com/once', events: ['match.ended'] };
      const first = await call('POST', '/webhooks', 'a', body, 'same-key');
      const again = await call('POST', '/webhooks', 'a', body, 'same-key');
      assert.equal(first.statusCode, 201);
      assert.equal(again.statusCode, 201);
      assert.equal(again.json<Created>().data.webhook.id, first.json<Created>().data.webhook.id);
      assert.equal(await count(), before + 1);
      problemOf(
        await call('POST', '/webhooks', 'a', { ...body, url: 'https://example.com/other' }, 'same-key'),
        422,
        'idempotency_key_reused',
      );
    });

    it('never stores a secret with an idempotent answer: its replay carries `secret: null`', async () => {
      const body = { url: 'https://example.com/secret-once', events: ['match.ended'] };
      const first = await call('POST', '/webhooks', 'a', body, 'secret-key');
      const again = await call('POST', '/webhooks', 'a', body, 'secret-key');
      assert.equal(again.statusCode, 201, again.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      const created = first.json<Created>().data;
      assert.match(created.secret, /^whsec_/);
      assert.deepEqual(again.json<{ data: unknown }>().data, { webhook: created.webhook, secret: null });

      const rotate = () =>
        call('POST', `/webhooks/${created.webhook.id}/rotate-secret`, 'a', undefined, 'rotate-key');
      const rotated = await rotate();
      const rotatedAgain = await rotate();
      assert.equal(rotatedAgain.statusCode, 200, rotatedAgain.body);
      assert.equal(rotatedAgain.headers['idempotent-replayed'], 'true');
      const fresh = rotated.json<{ data: { secret: string; previous_expires_at: string } }>().data;
      assert.match(fresh.secret, /^whsec_/);
      assert.deepEqual(rotatedAgain.json<{ data: unknown }>().data, { ...fresh, secret: null });

      // no stored answer holds any secret: not these, nor those of every webhook created above
      const stored = JSON.stringify(
        await ctx.testDb.db.kysely.selectFrom('idempotency_keys').selectAll().execute(),
      );
      assert.ok(stored.includes('secret-once'), 'the answers are stored');
      assert.doesNotMatch(stored, /whsec_/);
      for (const secret of [created.secret, fresh.secret])
        assert.ok(!stored.includes(secret.slice('whsec_'.length)));
    });

    it('changes, disables and enables again, and deletes', async () => {
      const { webhook } = await create('a');
      const changed = await call('PATCH', `/webhooks/${webhook.id}`, 'a', {
        url: 'https://example.org/new',
        events: ['match.ended'],
        enabled: false,
      });
      const body = changed.json<{ data: WebhookBody }>().data;
      assert.deepEqual(
        [body.url, body.events, body.enabled, body.disabled_reason],
        ['https://example.org/new', ['match.ended'], false, 'owner'],
      );
      problemOf(
        await call('PATCH', `/webhooks/${webhook.id}`, 'a', { url: 'http://example.org/' }),
        422,
        'invalid_webhook_url',
      );
      problemOf(await call('PATCH', `/webhooks/${webhook.id}`, 'a', {}), 400, 'invalid_body');
      const enabled = (await call('PATCH', `/webhooks/${webhook.id}`, 'a', { enabled: true })).json<{
        data: WebhookBody;
      }>();
      assert.deepEqual(
        [enabled.data.enabled, enabled.data.disabled_reason, enabled.data.url],
        [true, null, 'https://example.org/new'],
      );
      assert.equal((await call('DELETE', `/webhooks/${webhook.id}`, 'a')).statusCode, 204);
      problemOf(await call('GET', `/webhooks/${webhook.id}`, 'a'), 404, 'webhook_not_found');
      problemOf(await call('DELETE', `/webhooks/${webhook.id}`, 'a'), 404, 'webhook_not_found');
    });

    it('rotates the secret: both sign for 24 hours, then only the new one', async () => {
      const { webhook, secret } = await create('a');
      const res = await call('POST', `/webhooks/${webhook.id}/rotate-secret`, 'a');
      assert.equal(res.statusCode, 200, res.body);
      const rotated = res.json<{ data: { secret: string; previous_expires_at: string } }>().data;
      assert.notEqual(rotated.secret, secret);
      const repo = webhooksRepo(ctx.testDb.db.kysely);
      const now = Date.now();
      assert.deepEqual(await repo.liveSecrets(webhook.id, now), [rotated.secret, secret]);
      const ends = Date.parse(rotated.previous_expires_at);
      assert.ok(Math.abs(ends - (now + ROTATION_OVERLAP_MS)) < 60_000);
      assert.deepEqual(await repo.liveSecrets(webhook.id, ends + 1), [rotated.secret]);
      // a second rotation: the first secret is gone at its end, the second signs 24 h more
      // (a few ms later: rotated in the same millisecond, the second secret would end exactly when the first does)
      await new Promise((resolve) => setTimeout(resolve, 5));
      const third = (await call('POST', `/webhooks/${webhook.id}/rotate-secret`, 'a')).json<{
        data: { secret: string };
      }>();
      assert.deepEqual(await repo.liveSecrets(webhook.id, ends + 1), [third.data.secret, rotated.secret]);
    });

    it('lists deliveries with their attempts, redelivers one, and replays since a time', async () => {
      const { webhook } = await create('a', { url: 'https://example.com/log', events: ['match.ended'] });
      const { kysely } = ctx.testDb.db;
      const at = Date.now();
      await kysely
        .transaction()
        .execute((trx) => emitEvents(trx, dialect, [{ type: 'match.ended', data: { match_id: 1 } }], at + 1));
      const dispatcher = webhookDispatcher(ctx.testDb.db);
      while ((await dispatcher.dispatch(at + 2)) > 0);
      const list = (await call('GET', `/webhooks/${webhook.id}/deliveries`, 'a')).json<{
        data: DeliveryBody[];
        meta: { total: number };
      }>();
      assert.equal(list.meta.total, 1);
      const delivery = list.data[0];
      assert.ok(delivery);
      assert.equal(delivery.event_type, 'match.ended');
      assert.match(delivery.event_id, /^evt_\d{16}$/);
      // a worker tried and failed
      await kysely
        .updateTable('webhook_deliveries')
        .set({
          status: 'failed',
          attempts: 1,
          last_status_code: 500,
          last_latency_ms: 12,
          last_response: 'oops',
        })
        .where('id', '=', delivery.id)
        .execute();
      await kysely
        .insertInto('webhook_attempts')
        .values({
          delivery_id: delivery.id,
          webhook_id: webhook.id,
          attempt: 1,
          started_at: at + 3,
          status_code: 500,
          latency_ms: 12,
          response_headers: '{}',
          response_excerpt: 'oops',
          error: null,
        })
        .execute();
      const failed = (await call('GET', `/webhooks/${webhook.id}/deliveries?status=failed`, 'a')).json<{
        data: DeliveryBody[];
      }>();
      const first = failed.data[0];
      assert.ok(first);
      assert.equal(first.attempt_log[0]?.response_excerpt, 'oops');
      assert.equal(first.last_status_code, 500);
      const none = (await call('GET', `/webhooks/${webhook.id}/deliveries?status=dead`, 'a')).json<{
        data: unknown[];
      }>();
      assert.equal(none.data.length, 0);
      problemOf(
        await call('GET', `/webhooks/${webhook.id}/deliveries?status=lost`, 'a'),
        400,
        'invalid_parameter',
      );

      const redelivered = await call(
        'POST',
        `/webhooks/${webhook.id}/deliveries/${delivery.id}/redeliver`,
        'a',
      );
      assert.equal(redelivered.statusCode, 202, redelivered.body);
      const again = redelivered.json<{ data: DeliveryBody }>().data;
      assert.deepEqual([again.status, again.attempts], ['pending', 0]);
      assert.equal(again.attempt_log.length, 1, 'the log keeps the earlier try');
      problemOf(
        await call('POST', `/webhooks/${webhook.id}/deliveries/${delivery.id + 1000}/redeliver`, 'a'),
        404,
        'delivery_not_found',
      );

      const replay = await call('POST', `/webhooks/${webhook.id}/replay`, 'a', {
        since: new Date(at - 60_000).toISOString(),
      });
      assert.equal(replay.statusCode, 202, replay.body);
      assert.deepEqual(replay.json<{ data: unknown }>().data, {
        queued: 1,
        complete: true,
        next_since: null,
      });
      problemOf(
        await call('POST', `/webhooks/${webhook.id}/replay`, 'a', {
          since: new Date(at - 31 * 24 * 3_600_000).toISOString(),
        }),
        422,
        'unprocessable',
      );
    });
  });
}

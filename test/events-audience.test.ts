import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { API_KEY_SCOPES, SCOPE_NAMES, type Scope } from '../src/http/scopes.js';
import { EVENT_CATALOG } from '../src/modules/events/catalog.js';
import { eventOf, type EventTarget } from '../src/modules/events/define.js';
import { formatEventId } from '../src/modules/events/event-id.js';
import type { NewEvent } from '../src/modules/events/outbox.js';
import { eventsRepo } from '../src/modules/events/repo.js';
import type { EventsPageBody } from '../src/modules/events/v1-schemas.js';
import { webhookDispatcher } from '../src/modules/webhooks/dispatch.js';
import type { WebhookBody } from '../src/modules/webhooks/schemas.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { registerApp } from './helpers/oauth.js';
import { openSse, type SseClient } from './helpers/sse.js';
import { commitEvents, listenForStream } from './helpers/stream-app.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * Issue 23, part 2: one audience rule for the three channels. Every type of the catalog is
 * emitted for every audience it can have (public; private to the user, to a stranger; for each
 * app; for a user's own webhook), then each credential's webhook deliveries, pull pages, live
 * stream and resumed stream are compared: whatever one channel hands a credential, the other
 * three hand it too, and nothing more.
 */
// the narrow app's grant: the app-context scopes only, what an API key holds
const APP_CONTEXT: readonly Scope[] = [...API_KEY_SCOPES];

for (const dialect of testDialects()) {
  describe(`one audience for webhooks, the stream and the pull route (${dialect})`, () => {
    let ctx: TestContext;
    let streamUrl: string;
    const tokens = new TokenTable();
    const clients: SseClient[] = [];
    /** credential name -> its bearer token */
    const credentials = new Map<string, string>();
    const ids = { user: 0, stranger: 0, full: 0, narrow: 0, strangerApp: 0 };

    const grant = (userId: number, clientId: string, scopes: readonly string[]) =>
      ctx.testDb.db.kysely
        .insertInto('oauth_store')
        .values({
          model: 'Grant',
          id: randomBytes(8).toString('hex'),
          payload: JSON.stringify({ openid: { scope: ['openid', ...scopes].join(' ') }, iat: 1 }),
          grant_id: null,
          uid: null,
          client_id: clientId,
          account_id: String(userId),
          expires_at: null,
          consumed_at: null,
          last_used_at: null,
        })
        .execute();

    before(async () => {
      ctx = await createTestContext(dialect, { accessTokens: tokens });
      const user = await ctx.makeUser();
      const stranger = await ctx.makeUser();
      const dev = await ctx.makeUser();
      const full = await registerApp(ctx, dev.id);
      const narrow = await registerApp(ctx, dev.id);
      const strangerApp = await registerApp(ctx, stranger.id);
      Object.assign(ids, {
        user: user.id,
        stranger: stranger.id,
        full: full.id,
        narrow: narrow.id,
        strangerApp: strangerApp.id,
      });
      // the user authorized one app with every scope and one with the app-context scopes only
      await grant(user.id, full.clientId, SCOPE_NAMES);
      await grant(user.id, narrow.clientId, APP_CONTEXT);
      await grant(stranger.id, strangerApp.clientId, SCOPE_NAMES);
      const token = (name: string, scopes: readonly Scope[], appId: number, userId: number) => {
        const value = `token-${credentials.size}`;
        tokens.tokens.set(value, userToken([...scopes], { appId, userId, tier: 'partner' }));
        credentials.set(name, value);
      };
      token('app token with the scopes', SCOPE_NAMES, full.id, user.id);
      token('app token without them', APP_CONTEXT, narrow.id, user.id);
      token('a stranger’s app token', SCOPE_NAMES, strangerApp.id, stranger.id);
      credentials.set('API key', (await ctx.makeKey({ userId: user.id, tier: 'partner' })).secret);
      credentials.set(
        'a stranger’s API key',
        (await ctx.makeKey({ userId: stranger.id, tier: 'partner' })).secret,
      );
      streamUrl = await listenForStream(ctx.app);
    });
    after(async () => {
      for (const client of clients) client.close();
      await ctx.close();
    });

    const bearer = (name: string) => ({ authorization: `Bearer ${credentials.get(name) ?? ''}` });

    async function register(name: string): Promise<number> {
      const res = await ctx.inject({
        method: 'POST',
        url: '/v1/webhooks',
        headers: { ...bearer(name), 'idempotency-key': randomBytes(8).toString('hex') },
        payload: { url: 'https://hooks.example.com/hub', events: ['*'] },
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json<{ data: { webhook: WebhookBody } }>().data.webhook.id;
    }

    async function pulled(name: string, after: string): Promise<string[]> {
      const out: string[] = [];
      let cursor = after;
      for (;;) {
        const res = await ctx.inject({
          method: 'GET',
          url: `/v1/events?after=${cursor}&limit=7`,
          headers: bearer(name),
        });
        assert.equal(res.statusCode, 200, res.body);
        const page = res.json<EventsPageBody>();
        out.push(...page.data.map((e) => e.id));
        if (!page.meta.has_more) return out;
        cursor = page.meta.next_after ?? cursor;
      }
    }

    async function streamed(client: SseClient, until: string): Promise<string[]> {
      const out: string[] = [];
      for (;;) {
        const { id } = await client.nextEvent(10_000);
        out.push(id);
        if (id === until) return out;
      }
    }

    async function delivered(webhookId: number, after: number): Promise<string[]> {
      const rows = await ctx.testDb.db.kysely
        .selectFrom('webhook_deliveries')
        .select('event_id')
        .where('webhook_id', '=', webhookId)
        .where('event_id', '>', after)
        .orderBy('event_id')
        .execute();
      return rows.map((row) => formatEventId(row.event_id));
    }

    it('hands each credential the same events on every channel, for every type of the catalog', async () => {
      const names = [...credentials.keys()];
      const webhooks = new Map<string, number>();
      for (const name of names) webhooks.set(name, await register(name));
      const live = new Map<string, SseClient>();
      for (const name of names) {
        const client = await openSse(streamUrl, bearer(name));
        clients.push(client);
        live.set(name, client);
        assert.equal((await client.next(5000)).kind, 'comment', 'the stream is open');
      }
      const start = await eventsRepo(ctx.testDb.db.kysely).latest();

      // every type, for every audience it can have
      const targets: Record<'public' | 'user' | 'app', EventTarget[]> = {
        public: [{}],
        user: [{ userId: ids.user }, { userId: ids.stranger }],
        app: [
          { appId: ids.full },
          { appId: ids.narrow },
          { appId: ids.strangerApp },
          { userId: ids.user },
          { userId: ids.stranger },
        ],
      };
      const events: NewEvent[] = [];
      const audienceOf = new Map<number, string>();
      for (const definition of EVENT_CATALOG.values())
        for (const target of targets[definition.audience]) {
          audienceOf.set(events.length, `${definition.type} ${JSON.stringify(target)}`);
          events.push(eventOf(definition, definition.example, target));
        }
      const emitted = await commitEvents(ctx.testDb, events);
      // the last event is public: every reader sees it, so each stream is read up to it
      const last = EVENT_CATALOG.get('match.ended') ?? assert.fail('match.ended is in the catalog');
      const [end] = await commitEvents(ctx.testDb, [eventOf(last, last.example)]);
      assert.ok(end);
      const dispatcher = webhookDispatcher(ctx.testDb.db, { batch: 50 });
      while ((await dispatcher.dispatch(Date.now())) > 0);

      const what = (id: string) =>
        id === end ? 'match.ended {}' : (audienceOf.get(emitted.indexOf(id)) ?? id);
      const seen = new Map<string, Set<string>>();
      for (const name of names) {
        const pull = await pulled(name, formatEventId(start));
        const channels: Record<string, string[]> = {
          webhook: await delivered(webhooks.get(name) ?? 0, start),
          stream: await streamed(live.get(name) ?? assert.fail(), end),
          resumed: await streamed(
            await openSse(`${streamUrl}?after=${formatEventId(start)}`, bearer(name)).then((c) => {
              clients.push(c);
              return c;
            }),
            end,
          ),
        };
        for (const [channel, got] of Object.entries(channels))
          assert.deepEqual(got.map(what), pull.map(what), `${name}: ${channel} differs from pull`);
        seen.set(name, new Set(pull.map(what)));
      }

      // and what each sees is the rule's, not merely the same everywhere
      const sees = (name: string, event: string) => seen.get(name)?.has(event) ?? false;
      const mine = (type: string) => `${type} ${JSON.stringify({ userId: ids.user })}`;
      assert.ok(sees('app token with the scopes', mine('economy.grant.created')));
      assert.ok(!sees('app token without them', mine('economy.grant.created')), 'needs economy:read');
      assert.ok(sees('app token without them', mine('clan.invite_created')), 'granted clans:read');
      assert.ok(!sees('API key', mine('economy.grant.created')), 'an API key is public data only');
      // a server's chat (told to its owner): only an app the owner authorized with chat:read
      assert.ok(sees('app token with the scopes', mine('chat.message')));
      assert.ok(!sees('app token without them', mine('chat.message')), 'needs chat:read');
      assert.ok(!sees('API key', mine('chat.message')), 'never an API key, even its owner’s');
      assert.ok(sees('API key', mine('webhook.endpoint_disabled')), 'its owner’s own webhook');
      assert.ok(
        !sees('app token with the scopes', mine('webhook.endpoint_disabled')),
        'not the app’s webhook',
      );
      assert.ok(sees('app token without them', `app.created ${JSON.stringify({ appId: ids.narrow })}`));
      const forStrangers = (event: string) => {
        const target = JSON.parse(event.slice(event.indexOf(' ') + 1)) as EventTarget;
        return target.userId === undefined
          ? target.appId === undefined || target.appId === ids.strangerApp
          : target.userId === ids.stranger;
      };
      for (const stranger of ['a stranger’s API key', 'a stranger’s app token'])
        for (const event of seen.get(stranger) ?? [])
          assert.ok(forStrangers(event), `${stranger} saw ${event}`);
      // the walk covered the whole catalog: every type reached someone
      const reached = new Set(
        [...seen.values()].flatMap((events) => [...events].map((e) => e.split(' ')[0])),
      );
      assert.deepEqual(
        [...EVENT_CATALOG.keys()].filter((type) => !reached.has(type)),
        [],
      );
    });
  });
}

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createBot, hubSource, type Bot, type EventSource } from '@gaming-hub/bot';
import { BotTestKit, chatEvent, recordedEvent } from '@gaming-hub/bot/testkit';
import { HubClient, type HubEvent } from '@gaming-hub/client';
import { serverCommandsRepo } from '../../src/modules/servers/commands/repo.js';
import { createTestContext, type TestContext } from '../../test/helpers/context.js';
import { registerServer } from '../../test/helpers/ingest.js';
import { TokenTable, userToken } from '../../test/helpers/token-table.js';

/**
 * `permission: 'operators'` with no `operators` option: the bot asks the hub who owns and operates
 * each server (`GET /v1/servers/{id}/operators`, as the server owner who authorized it), keeps the
 * answer for its TTL, sees a new grant at once, and reads the list again when the hub tells
 * `server.operators_changed`.
 */
describe('operators-only commands, by the hub’s list of operators', () => {
  const tokens = new TokenTable();
  let ctx: TestContext;
  let hub: HubClient;
  let base: string;
  let server: number;
  let owner: number;
  let operator: number;
  let player: number;
  let reads = 0;

  before(async () => {
    ctx = await createTestContext('sqlite', { accessTokens: tokens });
    [owner, operator, player] = [
      (await ctx.makeUser()).id,
      (await ctx.makeUser()).id,
      (await ctx.makeUser()).id,
    ];
    tokens.tokens.set(
      'bot-owner',
      userToken(['chat:read', 'servers:command'], { userId: owner, tier: 'partner' }),
    );
    server = (await registerServer(ctx.testDb.db, 'cs2')).id;
    const repo = serverCommandsRepo(ctx.testDb.db.kysely);
    await repo.setChannel(server, 'rcon', owner);
    await repo.grant(server, operator, Date.now());
    base = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    hub = new HubClient({
      baseUrl: base,
      headers: { authorization: 'Bearer bot-owner' },
      fetch: (request, init) => {
        if (request.url.includes('/operators')) reads++;
        return fetch(request, init);
      },
    });
  });
  after(() => ctx.close());

  const kickBot = (kit: BotTestKit, clock?: () => number): Bot =>
    createBot({ ...kit.options, name: 'ops', hub, operatorsCache: clock ? { now: clock } : {} }).command(
      { name: 'kick', description: 'kick a player', permission: 'operators' },
      (c) => c.reply(`${c.player.name} kicks`),
    );
  const chat = (userId: number | null, name: string, at = 0) =>
    chatEvent({
      text: '!kick',
      server_id: server,
      user_id: userId,
      name,
      occurred_at: new Date(Date.UTC(2026, 10, 20, 18, 0, at)).toISOString(),
    });

  it('lets the owner and an operator run it and refuses other players, reading the hub once', async () => {
    const kit = new BotTestKit();
    const before = reads;
    await kit.run(kickBot(kit), [
      chat(operator, 'op'),
      chat(player, 'pleb', 1),
      chat(owner, 'boss', 2),
      chat(null, 'guest', 3),
      chatEvent({ text: '!help', server_id: server, user_id: operator, name: 'op' }),
      chatEvent({ text: '!help', server_id: server, user_id: player, name: 'pleb' }),
    ]);
    assert.deepEqual(kit.replies(), [
      'op kicks',
      'pleb: you may not use !kick.',
      'boss kicks',
      'guest: you may not use !kick.',
      'Commands: !kick: kick a player',
      'pleb: there are no commands you may use here.',
    ]);
    assert.equal(reads - before, 1, 'one read of the list, then the cache');
  });

  it('lets in an operator granted a moment ago, and keeps a revoked one in only until the TTL ends', async () => {
    let now = 1_000_000;
    const kit = new BotTestKit();
    const bot = kickBot(kit, () => now);
    const repo = serverCommandsRepo(ctx.testDb.db.kysely);
    const events = [10, 16, 46, 77].map((s) => chat(player, 'pleb', s));
    // after each event: what the hub operator does, and how long until the next event
    const then: [() => Promise<unknown>, number][] = [
      [() => repo.grant(server, player, Date.now()), 6_000],
      [() => repo.revoke(server, player, Date.now()), 30_000],
      [() => Promise.resolve(), 31_000],
      [() => Promise.resolve(), 0],
    ];
    bot.on('chat.message', async (event) => {
      const [act, wait] = then[events.findIndex((e) => e.id === event.id)] ?? [];
      await act?.();
      now += wait ?? 0;
    });
    await kit.run(bot, events);
    assert.deepEqual(kit.replies(), [
      // refused: the first read of the list
      'pleb: you may not use !kick.',
      // granted 6 s ago: the refusal rechecks a list older than 5 s
      'pleb kicks',
      // revoked 30 s ago: the list read 30 s ago is still fresh
      'pleb kicks',
      // 61 s after that read the list is read again
      'pleb: you may not use !kick.',
    ]);
  });

  it('reads the list again at once when the hub tells server.operators_changed', async () => {
    // a clock that stands still: neither the TTL nor the recheck of a refusal would ever read it again
    const kit = new BotTestKit();
    const repo = serverCommandsRepo(ctx.testDb.db.kysely);
    let cursor: string | undefined;
    /** what the hub told the bot's user since the last call: the real events, as the stream carries them */
    const told = async (): Promise<HubEvent[]> => {
      const page = await hub.get('/v1/events', {
        params: { query: { types: 'server.operators_changed', ...(cursor ? { after: cursor } : {}) } },
      });
      cursor = page.meta.next_after ?? cursor;
      return page.data as HubEvent[];
    };
    await told();
    let asked: readonly string[] | undefined;
    const changes: HubEvent[] = [];
    const source: EventSource = {
      async *events({ types }) {
        asked = types;
        yield chat(player, 'pleb', 20);
        await repo.grant(server, player, Date.now());
        for (const event of await told()) {
          changes.push(event);
          yield event;
        }
        yield chat(player, 'pleb', 21);
        await repo.revoke(server, player, Date.now());
        for (const event of await told()) {
          changes.push(event);
          yield event;
        }
        yield chat(player, 'pleb', 22);
        // another server's change: this bot keeps no list of it, so there is nothing to read
        yield recordedEvent('server.operators_changed', {
          server_id: server + 1000,
          game: 'cs2',
          user_id: player,
          change: 'granted',
        });
      },
    };
    const bot = createBot({
      ...kit.options,
      source,
      name: 'ops-changed',
      hub,
      operatorsCache: { now: () => 1_000_000 },
    }).command({ name: 'kick', description: 'kick a player', permission: 'operators' }, (c) =>
      c.reply(`${c.player.name} kicks`),
    );
    const before = reads;
    await kit.run(bot, []);
    assert.deepEqual(asked, ['chat.message', 'server.operators_changed'], 'the bot asks for the event');
    assert.deepEqual(
      changes.map((e) => e.type === 'server.operators_changed' && [e.data.server_id, e.data.change]),
      [
        [server, 'granted'],
        [server, 'revoked'],
      ],
    );
    assert.deepEqual(kit.replies(), [
      'pleb: you may not use !kick.',
      // granted: the event made the bot read the list again
      'pleb kicks',
      // revoked: the same, well within the 60 s the list would otherwise be kept
      'pleb: you may not use !kick.',
    ]);
    assert.equal(reads - before, 3, 'the first read, then one per change of this server');
  });

  it('goes on without server.operators_changed when the hub does not know it (an older hub)', async () => {
    // the hub's own answer to a type it does not know, as a hub older than the event answers for it
    const unknown = await fetch(`${base}/v1/events/stream?types=chat.message,server.operators_changed_v9`, {
      headers: { authorization: 'Bearer bot-owner' },
    });
    assert.equal(unknown.status, 400);
    const refusal = (await unknown.text()).replaceAll(
      'server.operators_changed_v9',
      'server.operators_changed',
    );
    const older = new HubClient({
      baseUrl: base,
      headers: { authorization: 'Bearer bot-owner' },
      fetch: (request, init) =>
        new URL(request.url).searchParams.get('types')?.split(',').includes('server.operators_changed')
          ? Promise.resolve(
              new Response(refusal, { status: 400, headers: { 'content-type': 'application/problem+json' } }),
            )
          : fetch(request, init),
    });
    const asked: (readonly string[] | undefined)[] = [];
    const source: EventSource = {
      async *events(options) {
        asked.push(options.types);
        // the first connection goes through the client to the older hub; the next gets one chat line
        if (asked.length === 1) yield* hubSource(older).events(options);
        else yield chat(operator, 'op', 30);
      },
    };
    const kit = new BotTestKit();
    const bot = createBot({ ...kit.options, source, name: 'ops-older', hub }).command(
      { name: 'kick', description: 'kick a player', permission: 'operators' },
      (c) => c.reply(`${c.player.name} kicks`),
    );
    await kit.run(bot, []);
    assert.deepEqual(asked, [['chat.message', 'server.operators_changed'], ['chat.message']]);
    assert.deepEqual(kit.replies(), ['op kicks']);
    assert.deepEqual(
      kit.logged.filter((l) => l.level !== 'info').map((l) => [l.message, l.fields.type]),
      [['the hub does not tell this event type; going on without it', 'server.operators_changed']],
    );
  });

  it('refuses an operators-only command when the hub cannot say, and logs why', async () => {
    const kit = new BotTestKit();
    const stranger = new HubClient({ baseUrl: base, headers: { authorization: 'Bearer nobody' } });
    const bot = createBot({ ...kit.options, name: 'ops2', hub: stranger }).command(
      { name: 'kick', description: 'kick a player', permission: 'operators' },
      (c) => c.reply('kicked'),
    );
    await kit.run(bot, [chat(operator, 'op')]);
    assert.deepEqual(kit.replies(), ['op: you may not use !kick.']);
    assert.ok(kit.logged.some((l) => l.message === 'could not read the operators of a server'));
  });

  it('lets a static list of operators override the hub’s', async () => {
    const kit = new BotTestKit();
    const before = reads;
    const bot = createBot({ ...kit.options, name: 'ops3', hub, operators: { [server]: [player] } }).command(
      { name: 'kick', description: 'kick a player', permission: 'operators' },
      (c) => c.reply(`${c.player.name} kicks`),
    );
    await kit.run(bot, [chat(operator, 'op'), chat(player, 'pleb', 1)]);
    assert.deepEqual(kit.replies(), ['op: you may not use !kick.', 'pleb kicks']);
    assert.equal(reads, before);
  });
});

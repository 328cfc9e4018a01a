import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { arg, createBot, FileStore, sayCommands, splitMessage, type CursorStore } from '@gaming-hub/bot';
import { BotTestKit, chatEvent, recordedEvent } from '@gaming-hub/bot/testkit';

/** The framework through its test kit: commands, replies, listeners, and the persisted cursor. */
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'bot-store-'));
  dirs.push(dir);
  return join(dir, 'bot.cursor');
};
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 20, 18, 0, seconds)).toISOString();

describe('commands', () => {
  it('parses typed arguments, answers usage errors, and finds aliases', async () => {
    const kit = new BotTestKit();
    const bot = createBot({ ...kit.options, name: 't' });
    bot.command(
      {
        name: 'top',
        aliases: ['best'],
        description: 'the best players',
        args: {
          game: arg.choice(['cs2', 'cs16'] as const),
          count: arg.integer({ min: 1, max: 10 }).default(3),
        },
      },
      (ctx) => {
        const { game, count }: { game: 'cs2' | 'cs16'; count: number } = ctx.args;
        return ctx.reply(`top ${count} of ${game}`);
      },
    );
    await kit.run(bot, [
      chatEvent({ text: '!top cs2 5' }),
      chatEvent({ text: '!BEST CS16' }),
      chatEvent({ text: '!top cs2 11' }),
      chatEvent({ text: '!top' }),
      chatEvent({ text: '!top csgo' }),
      chatEvent({ text: '!top cs2 1 2' }),
      chatEvent({ text: 'top cs2' }),
      chatEvent({ text: '!unknown' }),
    ]);
    assert.deepEqual(kit.replies(), [
      'top 5 of cs2',
      'top 3 of cs16',
      'count must be a whole number from 1 to 10. Usage: !top <game> [count]',
      'game is missing. Usage: !top <game> [count]',
      'game must be one of cs2, cs16. Usage: !top <game> [count]',
      'too many arguments (2). Usage: !top <game> [count]',
    ]);
  });

  it('keeps cooldowns per player and per server, timed by the chat lines', async () => {
    const kit = new BotTestKit();
    const bot = createBot({ ...kit.options, name: 't' });
    bot.command({ name: 'me', description: 'x', cooldown: { perPlayerMs: 10_000 } }, (ctx) =>
      ctx.reply(`hi ${ctx.player.name}`),
    );
    bot.command({ name: 'all', description: 'x', cooldown: { perServerMs: 5_000 } }, (ctx) =>
      ctx.reply('all'),
    );
    const bo = { steam_id: '76561198000000043', name: 'bo', user_id: 43 };
    await kit.run(bot, [
      chatEvent({ text: '!me', occurred_at: at(0) }),
      chatEvent({ text: '!me', occurred_at: at(3) }),
      chatEvent({ text: '!me', occurred_at: at(3), ...bo }),
      chatEvent({ text: '!me', occurred_at: at(10) }),
      chatEvent({ text: '!all', occurred_at: at(20) }),
      chatEvent({ text: '!all', occurred_at: at(21), ...bo }),
      chatEvent({ text: '!all', occurred_at: at(21), server_id: 4 }),
    ]);
    assert.deepEqual(kit.replies(), [
      'hi ace',
      '!me again in 7 s.',
      'hi bo',
      'hi ace',
      'all',
      '!all again in 4 s.',
      'all',
    ]);
  });

  it('checks permissions and lists in !help only what the player may use', async () => {
    const kit = new BotTestKit();
    const bot = createBot({ ...kit.options, name: 't', operators: { 3: [42] } });
    bot.command({ name: 'kickall', description: 'kick everyone', permission: 'operators' }, (ctx) =>
      ctx.reply('done'),
    );
    bot.command(
      { name: 'vip', description: 'vip only', permission: { steamIds: ['76561198000000099'] } },
      (ctx) => ctx.reply('vip'),
    );
    bot.command({ name: 'ping', description: 'pong' }, (ctx) => ctx.reply('pong'));
    const stranger = { steam_id: '76561198000000043', name: 'bo', user_id: 43 };
    await kit.run(bot, [
      chatEvent({ text: '!kickall' }),
      chatEvent({ text: '!kickall', ...stranger }),
      chatEvent({ text: '!vip' }),
      chatEvent({ text: '!help', ...stranger }),
      chatEvent({ text: '!help' }),
      chatEvent({ text: '!help ping' }),
    ]);
    assert.deepEqual(kit.replies(), [
      'done',
      'bo: you may not use !kickall.',
      'ace: you may not use !vip.',
      'Commands: !ping: pong',
      'Commands: !kickall: kick everyone | !ping: pong',
      '!ping: pong',
    ]);
  });

  it('says replies within the game’s chat length, split between words, quoted for the console', () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const parts = splitMessage(words, 120);
    assert.ok(parts.length > 1);
    assert.equal(parts.join(' '), words, 'nothing lost, no word cut');
    assert.ok(parts.every((p) => Buffer.byteLength(p) <= 120));
    assert.deepEqual(splitMessage('ab'.repeat(70), 120), ['ab'.repeat(60), 'ab'.repeat(10)]);
    assert.deepEqual(
      splitMessage('é'.repeat(70), 120),
      ['é'.repeat(60), 'é'.repeat(10)],
      'bytes, not characters',
    );
    // a quote would end the quoted text and let `;` run a second console command
    assert.deepEqual(sayCommands('cs2', 'gg "wp"; quit\nrestart'), [`say "gg 'wp'; quit restart"`]);
    assert.deepEqual(sayCommands('minecraft', 'gg "wp"'), ['say gg "wp"']);
  });

  it('hands a failed reply to the handler and logs it with the event id; other handlers go on', async () => {
    const kit = new BotTestKit();
    kit.failCommand = (serverId) => (serverId === 4 ? new Error('server 4 is down') : undefined);
    const bot = createBot({ ...kit.options, name: 't' });
    const seen: string[] = [];
    bot.command({ name: 'ping', description: 'pong' }, async (ctx) => {
      try {
        await ctx.reply('pong');
        seen.push('sent');
      } catch (error) {
        seen.push(`failed: ${(error as Error).message}`);
      }
    });
    bot.on('chat.message', () => {
      throw new Error('listener bug');
    });
    bot.on('chat.message', (event) => void seen.push(`listener ${event.data.server_id}`));
    const failing = chatEvent({ text: '!ping', server_id: 4 });
    await kit.run(bot, [failing, chatEvent({ text: '!ping' })]);
    assert.deepEqual(seen.sort(), [
      'failed: could not say on server 4: server 4 is down',
      'listener 3',
      'listener 4',
      'sent',
    ]);
    const errors = kit.logged.filter((l) => l.level === 'error');
    assert.equal(errors.length, 2);
    assert.equal(errors[0]?.fields.event_id, failing.id);
    assert.ok(kit.logged.some((l) => l.level === 'warn' && l.fields.event_id === failing.id));
    assert.equal(kit.store.cursor, 'evt_' + String(Number(failing.id.slice(4)) + 1).padStart(16, '0'));
  });
});

describe('reconnecting', () => {
  it("leaves no listener on the bot's signal from its wait between attempts (it lives as long as the bot)", async () => {
    const kit = new BotTestKit();
    const listening: number[] = [];
    const bot = createBot({
      ...kit.options,
      name: 't',
      source: {
        // a stream that drops once, then ends
        async *events({ signal }) {
          listening.push(getEventListeners(signal, 'abort').length);
          if (listening.length === 1) throw new Error('connection reset');
          yield* [];
        },
      },
    });
    bot.on('*', () => undefined);
    await bot.start();
    assert.equal(listening.length, 2, 'it connected again');
    assert.equal(listening[1], listening[0], 'the wait took its listener back');
    assert.ok(kit.logged.some((l) => l.level === 'warn' && l.message.includes('reconnecting')));
  });
});

describe('listeners', () => {
  it('gets typed events, filtered by server, game and player', async () => {
    const kit = new BotTestKit();
    const bot = createBot({ ...kit.options, name: 't' });
    const got: string[] = [];
    const ended = (server_id: number, team1: number[]) =>
      recordedEvent('match.ended', {
        match_id: server_id,
        server_id,
        game: 'cs2',
        map: 'de_dust2',
        team1_score: 13,
        team2_score: 9,
        winner: 1,
        team1,
        team2: [9],
        ended_at: at(0),
      });
    bot.on('match.ended', (event) => void got.push(`all ${event.data.match_id}`));
    bot.on('match.ended', (event) => void got.push(`server 2 ${event.data.map}`), { servers: [2] });
    bot.on('match.ended', (event) => void got.push(`player 42 ${event.data.match_id}`), { players: [42] });
    bot.on('match.ended', () => void got.push('cs16'), { games: ['cs16'] });
    await kit.run(bot, [ended(1, [42]), ended(2, [7])]);
    assert.deepEqual(got, ['all 1', 'player 42 1', 'all 2', 'server 2 de_dust2']);
  });
});

describe('the persisted cursor', () => {
  it('keeps the cursor and the effects of an unfinished event in a journal file', async () => {
    const path = tempFile();
    const store = new FileStore(path, { compactBytes: 200 });
    assert.deepEqual(await store.load(), { cursor: undefined, effects: new Set() });
    await store.commit('evt_0000000000000001');
    await store.recordEffect('b:evt_0000000000000002:cmd:x:0');
    await store.close();
    // a crash cut the last record short: it was never acknowledged
    writeFileSync(path, readFileSync(path, 'utf8') + 'E half-writ');
    const again = new FileStore(path, { compactBytes: 200 });
    assert.deepEqual(await again.load(), {
      cursor: 'evt_0000000000000001',
      effects: new Set(['b:evt_0000000000000002:cmd:x:0']),
    });
    for (let i = 2; i < 30; i++) await again.commit(`evt_${String(i).padStart(16, '0')}`);
    await again.close();
    assert.ok(readFileSync(path, 'utf8').length <= 200 + 30, 'compacted');
    assert.equal((await new FileStore(path).load()).cursor, `evt_${String(29).padStart(16, '0')}`);
  });

  /** A file store whose process "dies" (throws) at one record, as a kill -9 would stop it there. */
  const crashingStore = (path: string, dieAt: (record: string) => boolean): CursorStore => {
    const file = new FileStore(path);
    return {
      load: () => file.load(),
      close: () => file.close(),
      recordEffect: async (key) => {
        if (dieAt(`E ${key}`)) throw new Error('killed');
        await file.recordEffect(key);
      },
      commit: async (id) => {
        if (dieAt(`C ${id}`)) throw new Error('killed');
        await file.commit(id);
      },
    };
  };

  const twoReplies = (kit: BotTestKit, store: CursorStore, runs: string[]) => {
    const bot = createBot({ ...kit.options, store, name: 'c' });
    bot.command({ name: 'two', description: 'two replies' }, async (ctx) => {
      runs.push(ctx.event.id);
      await ctx.reply('one');
      await ctx.reply('two');
    });
    return bot;
  };

  it('after a crash before its commit, handles the event again without repeating its effects, and none before it', async () => {
    const path = tempFile();
    const events = [chatEvent({ text: '!two' }), chatEvent({ text: '!two' }), chatEvent({ text: '!two' })];
    const second = events[1]?.id ?? '';
    const runs: string[] = [];
    const first = new BotTestKit();
    await assert.rejects(
      first.run(
        twoReplies(
          first,
          crashingStore(path, (r) => r === `C ${second}`),
          runs,
        ),
        events,
      ),
      {
        name: 'StoreError',
      },
    );
    const again = new BotTestKit();
    await again.run(twoReplies(again, new FileStore(path), runs), events);
    const keys = [...first.commands, ...again.commands].map((c) => c.key);
    assert.equal(keys.length, 6, 'every reply once');
    assert.equal(new Set(keys).size, 6, 'none twice');
    assert.deepEqual(runs, [events[0]?.id, second, second, events[2]?.id], 'only the unfinished event again');
    assert.equal((await new FileStore(path).load()).cursor, events[2]?.id);
  });

  it('after a crash between an effect and its record, makes it again under the same key (the hub drops it)', async () => {
    const path = tempFile();
    const events = [chatEvent({ text: '!two' })];
    const runs: string[] = [];
    const first = new BotTestKit();
    const dying = crashingStore(path, (r) => r === `E c:${events[0]?.id}:cmd:two:1`);
    await assert.rejects(first.run(twoReplies(first, dying, runs), events), { name: 'StoreError' });
    const again = new BotTestKit();
    await again.run(twoReplies(again, new FileStore(path), runs), events);
    assert.deepEqual(
      first.commands.map((c) => c.text),
      ['one', 'two'],
    );
    assert.deepEqual(
      again.commands.map((c) => c.text),
      ['two'],
      'the recorded reply is not made again',
    );
    assert.equal(
      again.commands[0]?.key,
      first.commands[1]?.key,
      'the repeat carries the same Idempotency-Key',
    );
  });
});

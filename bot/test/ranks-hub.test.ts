import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createBot } from '@gaming-hub/bot';
import { BotTestKit, chatEvent } from '@gaming-hub/bot/testkit';
import { HubClient } from '@gaming-hub/client';
import { createTestContext, type TestContext } from '../../test/helpers/context.js';
import type { MadeUser } from '../../test/helpers/factories.js';
import { makeRating } from '../../test/helpers/killboard-factories.js';
import { addRankCommands, hubLadder } from '../examples/ranks.js';

/**
 * The `!rank` example against a real hub app with more rated players than the published ladder
 * lists (200): a player far down is told their place, not "not ranked".
 */
describe('!rank against a hub with 250 rated players', () => {
  let ctx: TestContext;
  let hub: HubClient;
  /** the players in ladder order (rating desc, made in that order so ids break no ties) */
  const players: MadeUser[] = [];

  before(async () => {
    ctx = await createTestContext('sqlite');
    for (let i = 0; i < 250; i++) players.push(await ctx.makeUser());
    await Promise.all(
      players.map((user, i) =>
        makeRating(ctx.testDb.db, { user, game: 'cs2', rating: 1500 - i, games: 10, wins: 5 }),
      ),
    );
    const base = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    hub = new HubClient({ baseUrl: base, apiKey: ctx.key });
  });
  after(() => ctx.close());

  it('answers each player with their place on the ladder, past the top 200 too', async () => {
    const kit = new BotTestKit();
    const bot = addRankCommands(createBot({ ...kit.options, name: 'ranks' }), hubLadder(hub));
    const places = [1, 200, 201, 250];
    await kit.run(bot, [
      ...places.map((place) => {
        const user = players[place - 1] ?? assert.fail(`no player ${place}`);
        return chatEvent({ text: '!rank', user_id: user.id, name: user.username, steam_id: null });
      }),
      chatEvent({ text: '!top 2' }),
    ]);
    const name = (place: number) => players[place - 1]?.username ?? '';
    assert.deepEqual(kit.replies(), [
      ...places.map((p) => `${name(p)}: #${p} on the cs2 ladder (${1501 - p} Elo)`),
      `Top cs2: #1 ${name(1)} 1500, #2 ${name(2)} 1499`,
    ]);
  });
});

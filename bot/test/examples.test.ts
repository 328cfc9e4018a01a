import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBot } from '@gaming-hub/bot';
import { BotTestKit, chatEvent, recordedEvent } from '@gaming-hub/bot/testkit';
import { addKillStreaks, addMatchSummaries, addWelcome } from '../examples/announcers.js';
import { addRankCommands, type LadderData } from '../examples/ranks.js';

/** The examples, run by the test kit on recorded events (no hub): what they would say and post. */
const LADDER = [
  { rank: 1, user_id: 7, name: 'NovaStrike', rating: 1512 },
  { rank: 2, user_id: 42, name: 'ace', rating: 1487 },
  { rank: 3, user_id: 9, name: 'Bolt', rating: 1400 },
  { rank: 4, user_id: 10, name: 'Kite', rating: 1390 },
];
const ladder: LadderData = {
  top: async (game, count) => (game === 'cs2' ? LADDER.slice(0, count) : []),
  elo: async (userId) =>
    userId === 42
      ? [{ game: 'cs2', rank: 2, rating: 1487, games: 212 }]
      : userId === 99
        ? [{ game: 'cs2', rank: 4817, rating: 912, games: 3 }]
        : [],
};

const kill = (killer: string, victim: string, round: number) =>
  recordedEvent('kill.provisional', {
    server_id: 3,
    game: 'cs2',
    killer_user_id: null,
    killer_steam_id: killer,
    killer_name: `p${killer.slice(-2)}`,
    victim_user_id: null,
    victim_steam_id: victim,
    victim_name: `p${victim.slice(-2)}`,
    weapon: 'ak47',
    headshot: false,
    round,
    occurred_at: '2026-11-20T18:00:00.000Z',
  });
const A = '76561198000000011';
const B = '76561198000000022';
const C = '76561198000000033';

describe('examples', () => {
  it('answers !rank, !elo and !top in game from the ladder', async () => {
    const kit = new BotTestKit();
    const bot = addRankCommands(createBot({ ...kit.options, name: 'ranks' }), ladder);
    await kit.run(bot, [
      chatEvent({ text: '!rank' }),
      chatEvent({ text: '!r', user_id: 99, name: 'newbie', steam_id: '76561198000000099' }),
      chatEvent({ text: '!elo', occurred_at: '2026-11-20T18:00:30.000Z' }),
      chatEvent({ text: '!elo cs16', occurred_at: '2026-11-20T18:01:00.000Z' }),
      chatEvent({ text: '!top' }),
      chatEvent({ text: '!top 2', occurred_at: '2026-11-20T18:00:10.000Z' }),
      chatEvent({ text: '!top 2', server_id: 4 }),
      chatEvent({ text: '!rank', user_id: null, steam_id: null, name: 'guest' }),
      chatEvent({ text: '!rank', user_id: 77, name: 'fresh', steam_id: '76561198000000077' }),
    ]);
    assert.deepEqual(kit.replies(), [
      'ace: #2 on the cs2 ladder (1487 Elo)',
      'newbie: #4817 on the cs2 ladder (912 Elo)',
      'ace: 1487 Elo in cs2 after 212 matches',
      'ace: unrated in cs16.',
      'Top cs2: #1 NovaStrike 1512, #2 ace 1487, #3 Bolt 1400',
      '!top again in 20 s.',
      'Top cs2: #1 NovaStrike 1512, #2 ace 1487',
      'guest: play a round first, then ask again.',
      'fresh: not on the cs2 ladder yet: play a rated match first.',
    ]);
  });

  it('announces kill streaks from live kills, minus a voided round, and ends a streak on death', async () => {
    const kit = new BotTestKit();
    const bot = addKillStreaks(createBot({ ...kit.options, name: 'streaks' }));
    await kit.run(bot, [
      kill(A, B, 1),
      kill(A, C, 1),
      recordedEvent('round.voided', { server_id: 3, game: 'cs2', map: 'de_dust2', round: 1, kills: 2 }),
      kill(A, B, 1),
      kill(A, C, 1),
      kill(A, B, 2),
      kill(B, A, 2),
      kill(B, C, 2),
      kill(A, B, 3),
    ]);
    assert.deepEqual(kit.replies(3), ['p11 is on a 3-kill streak!']);
  });

  it('posts a match summary to Discord and welcomes a new player', async () => {
    const kit = new BotTestKit();
    const bot = addWelcome(
      addMatchSummaries(createBot({ ...kit.options, name: 'news' }), 'http://127.0.0.1:9/x'),
    );
    const ended = recordedEvent('match.ended', {
      match_id: 812,
      server_id: 3,
      game: 'cs2',
      map: 'de_inferno',
      team1_score: 13,
      team2_score: 9,
      winner: 1,
      team1: [42, 44],
      team2: [43, 45],
      ended_at: '2026-11-20T18:40:00.000Z',
    });
    await kit.run(bot, [
      ended,
      recordedEvent('player.registered', {
        user_id: 50,
        steam_id: A,
        name: 'fresh',
        server_id: 3,
        game: 'cs2',
      }),
    ]);
    assert.deepEqual(kit.posts, [
      {
        output: 'discord',
        key: `news:${ended.id}:on:match.ended:0:0`,
        message: {
          embeds: [
            {
              title: 'Team 1 wins 13:9 on de_inferno',
              description: 'Match 812 on server 3 (cs2)',
              color: 0x2e86de,
              timestamp: '2026-11-20T18:40:00.000Z',
              fields: [
                { name: 'Team 1 (13)', value: '#42, #44', inline: true },
                { name: 'Team 2 (9)', value: '#43, #45', inline: true },
              ],
            },
          ],
        },
      },
    ]);
    assert.deepEqual(kit.replies(), ['Welcome to the hub, fresh! Type !help']);
  });
});

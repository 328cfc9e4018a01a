import type { HubClient } from '@gaming-hub/client';
import { arg, type Bot } from '@gaming-hub/bot';

/** What the rank commands read from the hub (a stand-in in unit tests). */
export interface LadderData {
  /** the best `count` of a game's Elo ladder, highest first */
  top(
    game: string,
    count: number,
  ): Promise<{ rank: number; user_id: number; name: string; rating: number }[]>;
  /** a player's Elo per game, with their place on that game's ladder (however far down) */
  elo(userId: number): Promise<{ game: string; rank: number; rating: number; games: number }[]>;
}

/** The hub's published ladder (`x-api-key`) and `/v1` stats (`stats:read`). */
export const hubLadder = (hub: HubClient): LadderData => ({
  async top(game, count) {
    const body = await hub.get('/api-platform/v1/stats/elo', {
      params: { query: { game: game === 'cs16' ? 'cs16' : 'cs2', limit: count } },
    });
    return body.leaderboard;
  },
  async elo(userId) {
    const body = await hub.get('/v1/users/{id}/stats', { params: { path: { id: userId } } });
    return body.data.elo;
  },
});

const GAMES = ['cs2', 'cs16'] as const;

/** `!rank`, `!elo` and `!top`, answered in the chat of the server that asked. */
export function addRankCommands(bot: Bot, data: LadderData): Bot {
  bot.command(
    {
      name: 'rank',
      aliases: ['r'],
      description: 'your place on the Elo ladder',
      cooldown: { perPlayerMs: 10_000 },
    },
    async (ctx) => {
      const { userId, name } = ctx.player;
      const game = ctx.server.game === 'cs16' ? 'cs16' : 'cs2';
      if (userId === null) return ctx.reply(`${name}: play a round first, then ask again.`);
      // the player's own place, read from their stats: the ladder route lists only its top 200
      const entry = (await data.elo(userId)).find((e) => e.game === game);
      return ctx.reply(
        entry
          ? `${name}: #${entry.rank} on the ${game} ladder (${entry.rating} Elo)`
          : `${name}: not on the ${game} ladder yet: play a rated match first.`,
      );
    },
  );

  bot.command(
    {
      name: 'elo',
      description: 'your Elo rating',
      args: { game: arg.choice(GAMES).optional() },
      cooldown: { perPlayerMs: 10_000 },
    },
    async (ctx) => {
      const { userId, name } = ctx.player;
      const game = ctx.args.game ?? (ctx.server.game === 'cs16' ? 'cs16' : 'cs2');
      if (userId === null) return ctx.reply(`${name}: no rating yet.`);
      const rating = (await data.elo(userId)).find((e) => e.game === game);
      return ctx.reply(
        rating
          ? `${name}: ${rating.rating} Elo in ${game} after ${rating.games} matches`
          : `${name}: unrated in ${game}.`,
      );
    },
  );

  bot.command(
    {
      name: 'top',
      description: 'the best of the ladder',
      args: { count: arg.integer({ min: 1, max: 10 }).default(3) },
      cooldown: { perServerMs: 30_000 },
    },
    async (ctx) => {
      const game = ctx.server.game === 'cs16' ? 'cs16' : 'cs2';
      const top = await data.top(game, ctx.args.count);
      return ctx.reply(
        top.length === 0
          ? `Nobody is rated in ${game} yet.`
          : `Top ${game}: ${top.map((e) => `#${e.rank} ${e.name} ${e.rating}`).join(', ')}`,
      );
    },
  );
  return bot;
}

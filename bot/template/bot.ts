// A Gaming Hub bot: `npm start` runs it (see README.md for the settings).
import { HubClient, HubOAuth, type OAuthTokens } from '@gaming-hub/client';
import { createBot } from '@gaming-hub/bot';
import { readFileSync, writeFileSync } from 'node:fs';

/** The bot's commands and listeners: add yours here (bot.test.ts tests them without a hub). */
export function setUp(bot: ReturnType<typeof createBot>, hub?: HubClient) {
  bot.command(
    { name: 'rank', description: 'your place on the Elo ladder', cooldown: { perPlayerMs: 10_000 } },
    async (ctx) => {
      if (!hub || ctx.player.userId === null) return ctx.reply(`${ctx.player.name}: play a round first.`);
      const { data } = await hub.get('/v1/users/{id}/stats', { params: { path: { id: ctx.player.userId } } });
      const me = data.elo.find((entry) => entry.game === 'cs2');
      return ctx.reply(
        me ? `${ctx.player.name}: #${me.rank} (${me.rating} Elo)` : `${ctx.player.name}: not ranked yet.`,
      );
    },
  );
  return bot;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const baseUrl = process.env.HUB_URL ?? 'http://127.0.0.1:3000';
  const tokensFile = process.env.HUB_TOKENS ?? 'tokens.json';
  const hub = new HubClient({
    baseUrl,
    apiKey: process.env.HUB_API_KEY,
    oauth: {
      tokens: JSON.parse(readFileSync(tokensFile, 'utf8')) as OAuthTokens,
      client: new HubOAuth({
        baseUrl,
        clientId: process.env.HUB_CLIENT_ID ?? '',
        redirectUri: 'http://127.0.0.1/callback',
      }),
      onTokens: (tokens) => writeFileSync(tokensFile, JSON.stringify(tokens)),
    },
  });
  await setUp(createBot({ name: process.env.BOT_NAME ?? 'my-bot', hub }), hub).start();
}

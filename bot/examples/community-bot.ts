/**
 * A community bot with every example: `!rank`, `!elo`, `!top` in game, `!announce` for the server's
 * operators, kill streaks announced on the server, match summaries posted to Discord, a welcome for new players.
 *
 *   HUB_URL=https://hub.example.com HUB_API_KEY=ghk_… HUB_CLIENT_ID=app_… HUB_CLIENT_SECRET=ghcs_… \
 *   HUB_TOKENS=./tokens.json DISCORD_WEBHOOK_URL=https://discord.com/api/webhooks/… \
 *   node --import tsx examples/community-bot.ts
 *
 * `HUB_TOKENS` holds the OAuth tokens (`{"accessToken": …, "refreshToken": …}`) of a server owner
 * or operator who authorized the app with `chat:read servers:command stats:read offline_access`;
 * refreshed tokens are written back to it (a refresh token is spent on use).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { HubClient, HubOAuth, type OAuthTokens } from '@gaming-hub/client';
import { arg, createBot } from '@gaming-hub/bot';
import { addKillStreaks, addMatchSummaries, addWelcome } from './announcers.js';
import { addRankCommands, hubLadder } from './ranks.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
};

const baseUrl = env('HUB_URL');
const tokensFile = env('HUB_TOKENS');
const hub = new HubClient({
  baseUrl,
  apiKey: process.env.HUB_API_KEY,
  oauth: {
    tokens: JSON.parse(readFileSync(tokensFile, 'utf8')) as OAuthTokens,
    client: new HubOAuth({
      baseUrl,
      clientId: env('HUB_CLIENT_ID'),
      clientSecret: process.env.HUB_CLIENT_SECRET,
      redirectUri: process.env.HUB_REDIRECT_URI ?? 'http://127.0.0.1/callback',
    }),
    onTokens: (tokens) => writeFileSync(tokensFile, JSON.stringify(tokens)),
  },
});

const bot = createBot({
  name: process.env.BOT_NAME ?? 'community',
  hub,
  store: process.env.BOT_STORE ?? '.bot/community.cursor',
  startFrom: process.env.BOT_START_FROM === 'oldest' ? 'oldest' : 'now',
});
addRankCommands(bot, hubLadder(hub));
// operators only: who operates each server is read from the hub (GET /v1/servers/{id}/operators)
bot.command(
  {
    name: 'announce',
    description: 'say something to the whole server',
    args: { text: arg.text() },
    permission: 'operators',
  },
  (ctx) => ctx.reply(ctx.args.text),
);
addKillStreaks(bot);
addWelcome(bot);
if (process.env.DISCORD_WEBHOOK_URL) addMatchSummaries(bot, process.env.DISCORD_WEBHOOK_URL);

await bot.start();

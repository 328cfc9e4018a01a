import { discordWebhook, type Bot, type DiscordMessage, type Output } from '@gaming-hub/bot';

/**
 * A kill-streak announcer on live (provisional) kills: 3, 5 and 10 kills in a row without dying
 * are announced on the server. A voided round takes its kills back; a death ends a streak.
 */
export function addKillStreaks(bot: Bot, thresholds: readonly number[] = [3, 5, 10]): Bot {
  /** per server, per SteamID: the kills of the current streak, with their round */
  const streaks = new Map<string, { round: number }[]>();
  const key = (server: number, steamId: string) => `${server}/${steamId}`;
  bot.on('kill.provisional', async (event, ctx) => {
    const d = event.data;
    streaks.delete(key(d.server_id, d.victim_steam_id));
    const streak = streaks.get(key(d.server_id, d.killer_steam_id)) ?? [];
    streak.push({ round: d.round });
    streaks.set(key(d.server_id, d.killer_steam_id), streak);
    if (thresholds.includes(streak.length))
      await ctx.say(
        { id: d.server_id, game: d.game },
        `${d.killer_name} is on a ${streak.length}-kill streak!`,
      );
  });
  bot.on('round.voided', (event) => {
    for (const [k, streak] of streaks)
      if (k.startsWith(`${event.data.server_id}/`))
        streaks.set(
          k,
          streak.filter((kill) => kill.round !== event.data.round),
        );
  });
  return bot;
}

/** The summary of a match, as a Discord message with an embed. */
export function matchSummary(
  data: {
    match_id: number;
    server_id: number;
    game: string;
    map: string;
    team1_score: number;
    team2_score: number;
    winner: number;
    team1: number[];
    team2: number[];
    ended_at: string;
  },
  names: (userId: number) => string = (id) => `#${id}`,
): DiscordMessage {
  const result = data.winner === 0 ? 'Draw' : `Team ${data.winner} wins`;
  return {
    embeds: [
      {
        title: `${result} ${data.team1_score}:${data.team2_score} on ${data.map}`,
        description: `Match ${data.match_id} on server ${data.server_id} (${data.game})`,
        color: data.winner === 1 ? 0x2e86de : data.winner === 2 ? 0xe67e22 : 0x95a5a6,
        timestamp: data.ended_at,
        fields: [
          {
            name: `Team 1 (${data.team1_score})`,
            value: data.team1.map(names).join(', ') || '-',
            inline: true,
          },
          {
            name: `Team 2 (${data.team2_score})`,
            value: data.team2.map(names).join(', ') || '-',
            inline: true,
          },
        ],
      },
    ],
  };
}

/** Posts every ended match to a Discord channel's incoming webhook. */
export function addMatchSummaries(bot: Bot, discord: Output<DiscordMessage> | string): Bot {
  const output = typeof discord === 'string' ? discordWebhook(discord) : discord;
  bot.on('match.ended', (event, ctx) => ctx.send(output, matchSummary(event.data)));
  return bot;
}

/** Welcomes a player on the server where the hub first saw them. */
export function addWelcome(bot: Bot): Bot {
  bot.on('player.registered', (event, ctx) =>
    ctx.say(
      { id: event.data.server_id, game: event.data.game },
      `Welcome to the hub, ${event.data.name}! Type !help`,
    ),
  );
  return bot;
}

import { Type, type Static } from 'typebox';
import { ELO_SCALE, ELO_START, K_FACTOR, PLACEMENT_K_FACTOR, PLACEMENT_MATCHES } from '../../engines/elo.js';
import { percent1 } from '../../engines/percent.js';
import type { App } from '../../http/app-types.js';
import { publicRead } from '../../http/public-route.js';
import { ELO_GAMES } from '../../engines/elo.js';
import { Limit, StringEnum } from '../../http/schemas.js';
import type { EloRepo } from './repo.js';

export const EloLadderEntrySchema = Type.Object(
  {
    rank: Type.Integer({ minimum: 1, examples: [1] }),
    user_id: Type.Integer({ examples: [42] }),
    steam_id: Type.Union(
      [Type.String({ description: 'SteamID64', examples: ['76561197960290419'] }), Type.Null()],
      {
        description: 'null when the user has no linked Steam account',
      },
    ),
    name: Type.String({ description: 'the user\u2019s username', examples: ['NovaStrike'] }),
    rating: Type.Integer({ description: 'ranked Elo rating', examples: [1487] }),
    games: Type.Integer({ minimum: 0, description: 'rated matches played', examples: [212] }),
    wins: Type.Integer({ minimum: 0, examples: [121] }),
    win_pct: Type.Number({
      minimum: 0,
      maximum: 100,
      description: 'wins / games × 100, rounded to 1 decimal (0 without games)',
      examples: [57.1],
    }),
  },
  { $id: 'EloLadderEntry', title: 'EloLadderEntry' },
);

export const EloQuery = Type.Object({
  game: StringEnum(ELO_GAMES, { default: 'cs2', description: 'The ladder of this game (default cs2).' }),
  limit: Limit(100, 200),
});

export const EloLadderResponse = Type.Object(
  {
    game: StringEnum(ELO_GAMES, { description: 'the game used' }),
    leaderboard: Type.Array(Type.Ref('EloLadderEntry')),
  },
  { description: 'The ELO ladder of one game, highest rating first' },
);

export type EloLadderEntry = Static<typeof EloLadderEntrySchema>;
export type EloLadderBody = { game: (typeof ELO_GAMES)[number]; leaderboard: EloLadderEntry[] };

// The formula of src/engines/elo.ts, in prose, built from its constants so the docs cannot drift.
const FORMULA =
  `Ratings are team Elo, kept separately per game. Every player starts at ${ELO_START}. A team's rating is ` +
  `the mean of its players' ratings before the match. The expected score is ` +
  `E = 1 / (1 + 10^((R_opponent − R_team) / ${ELO_SCALE})) and the actual score S is 1 for a win, 0.5 for a ` +
  `draw and 0 for a loss. Each player's rating changes by round(K × (S − E) × participation), where K is ` +
  `${K_FACTOR}, or ${PLACEMENT_K_FACTOR} during a player's first ${PLACEMENT_MATCHES} rated matches ` +
  `(placement), and participation is the share of the match's rounds the player played (1 for a full ` +
  `match). A player who left early therefore moves less in either direction, except that leaving a lost ` +
  `match never softens the loss: a leaver on the losing side takes the full change.`;

export function eloRoutes(repo: EloRepo) {
  return (app: App): void => {
    app.addSchema(EloLadderEntrySchema);

    app.get(
      '/stats/elo',
      publicRead({
        operationId: 'stats_elo_get',
        tag: 'ELO',
        summary: 'Counter-Strike ELO ladder',
        description:
          'Players of one game ranked by Elo rating, highest first; ties go to the lower user id. ' +
          'Distinct from the XP leaderboard. `win_pct` is wins / games × 100 rounded to one decimal.\n\n' +
          FORMULA,
        querystring: EloQuery,
        response: EloLadderResponse,
      }),
      async (request): Promise<EloLadderBody> => {
        const { game, limit } = request.query;
        const rows = await repo.ladder(game, limit);
        return {
          game,
          leaderboard: rows.map((row, i) => ({
            rank: i + 1,
            user_id: row.user_id,
            steam_id: row.steam_id,
            name: row.username,
            rating: row.rating,
            games: row.games,
            wins: row.wins,
            win_pct: percent1(row.wins, row.games),
          })),
        };
      },
    );
  };
}

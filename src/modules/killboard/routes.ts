import { Type, type Static } from 'typebox';
import { percent1 } from '../../engines/percent.js';
import { parsePlayer, type PlayerRef } from '../../engines/steam-id.js';
import type { App } from '../../http/app-types.js';
import { ProblemError } from '../../http/problem.js';
import { publicRead } from '../../http/public-route.js';
import { KILLBOARD_GAMES, Limit, StringEnum, Timestamp, toIso } from '../../http/schemas.js';
import type { KillboardRepo, KillRow } from './repo.js';

const SteamId = Type.String({ description: 'SteamID64', examples: ['76561197960290419'] });

export const KillParticipantSchema = Type.Object(
  {
    steam_id: SteamId,
    user_id: Type.Integer({ description: 'hub user ID', examples: [42] }),
    name: Type.String({ description: 'in-game name at the time of the kill', examples: ['NovaStrike'] }),
  },
  { $id: 'KillParticipant', title: 'KillParticipant' },
);

export const KillSchema = Type.Object(
  {
    id: Type.Integer({ examples: [981234] }),
    game: StringEnum(KILLBOARD_GAMES, { examples: ['cs2'] }),
    server_id: Type.Integer({ examples: [3] }),
    killer: Type.Ref('KillParticipant'),
    victim: Type.Ref('KillParticipant'),
    weapon: Type.String({ description: 'weapon code', examples: ['ak47'] }),
    headshot: Type.Boolean({ examples: [true] }),
    distance: Type.Number({ minimum: 0, description: 'metres, 2 decimals', examples: [18.25] }),
    round_number: Type.Integer({ minimum: 0, examples: [14] }),
    occurred_at: Timestamp('when the kill happened'),
  },
  { $id: 'Kill', title: 'Kill' },
);

export const TopFragLeaderSchema = Type.Object(
  {
    rank: Type.Integer({ minimum: 1, examples: [1] }),
    user_id: Type.Integer({ examples: [42] }),
    steam_id: Type.Union([SteamId, Type.Null()], {
      description: 'null when the user has no linked Steam account',
    }),
    name: Type.String({ description: 'the user\u2019s username', examples: ['NovaStrike'] }),
    game: StringEnum(KILLBOARD_GAMES, { examples: ['cs2'] }),
    kills: Type.Integer({ minimum: 0, examples: [1543] }),
    headshots: Type.Integer({ minimum: 0, examples: [702] }),
    hs_pct: Type.Number({
      minimum: 0,
      maximum: 100,
      description: 'headshots / kills × 100, rounded to 1 decimal (0 without kills)',
      examples: [45.5],
    }),
  },
  { $id: 'TopFragLeader', title: 'TopFragLeader' },
);

const PERIODS = ['week', 'month', 'all'] as const;

const PLAYER_FORMS =
  'a SteamID64 (17 digits, individual account), STEAM_X:Y:Z (X 0-5, Y 0 or 1), [U:1:N] or u<userId>';

const GameFilter = StringEnum(KILLBOARD_GAMES, { description: 'Only this game.' });

export const FeedQuery = Type.Object({
  game: Type.Optional(GameFilter),
  player: Type.Optional(
    Type.String({
      description: PLAYER_FORMS,
      // The shape only; the SteamID64 range and account-id width are checked by parsePlayer.
      pattern: '^(\\d{17}|STEAM_[0-5]:[01]:\\d{1,10}|\\[U:1:\\d{1,10}\\]|u[1-9]\\d{0,9})$',
      examples: ['76561197960290419', 'STEAM_0:1:12345', '[U:1:24691]', 'u42'],
    }),
  ),
  limit: Limit(50, 100),
});

export const TopFragQuery = Type.Object({
  period: StringEnum(PERIODS, {
    default: 'all',
    description: 'week: the 7 UTC days ending today; month: the 30 UTC days ending today; all: every kill.',
  }),
  game: Type.Optional(GameFilter),
  limit: Limit(25, 100),
});

export const KillFeedResponse = Type.Object(
  { kills: Type.Array(Type.Ref('Kill')) },
  { description: 'Kills, newest first' },
);
export const TopFragResponse = Type.Object(
  {
    period: StringEnum(PERIODS, { description: 'the period used' }),
    leaders: Type.Array(Type.Ref('TopFragLeader')),
  },
  { description: 'Top fraggers of the period, one row per player and game' },
);

export type Kill = Static<typeof KillSchema> & {
  killer: Static<typeof KillParticipantSchema>;
  victim: Static<typeof KillParticipantSchema>;
};
export type KillFeedBody = { kills: Kill[] };
export type TopFragLeader = Static<typeof TopFragLeaderSchema>;
export type TopFragBody = { period: (typeof PERIODS)[number]; leaders: TopFragLeader[] };

const toKill = (row: KillRow): Kill => ({
  id: row.id,
  game: row.game as Kill['game'],
  server_id: row.server_id,
  killer: { steam_id: row.killer_steam_id, user_id: row.killer_user_id, name: row.killer_name },
  victim: { steam_id: row.victim_steam_id, user_id: row.victim_user_id, name: row.victim_name },
  weapon: row.weapon,
  headshot: row.headshot === 1,
  // PostgreSQL stores distance as float4; rounding hides its last-digit noise and reads the same on both.
  distance: Math.round(row.distance * 100) / 100,
  round_number: row.round_number,
  occurred_at: toIso(row.occurred_at),
});

/** The `player` filter, or a 400 naming it: the schema pattern checked the shape, this the ranges. */
function playerFilter(text: string | undefined): PlayerRef | undefined {
  if (text === undefined) return undefined;
  const player = parsePlayer(text);
  if (player) return player;
  const reason = `must be ${PLAYER_FORMS} (got ${JSON.stringify(text)})`;
  throw new ProblemError('invalid_parameter', `query parameter 'player' ${reason}`, {
    invalidParams: [{ in: 'query', name: 'player', reason }],
  });
}

export function killboardRoutes(repo: KillboardRepo, now: () => number) {
  return (app: App): void => {
    app.addSchema(KillParticipantSchema);
    app.addSchema(KillSchema);
    app.addSchema(TopFragLeaderSchema);

    app.get(
      '/killboard/feed',
      publicRead({
        operationId: 'killboard_feed_get',
        tag: 'Killboard',
        summary: 'Recent kills across all games',
        description:
          'Kills newest first (ties by id, newest first). `game` keeps one game; `player` keeps kills where that ' +
          `player is the killer or the victim, given as ${PLAYER_FORMS}. A Steam ID is matched through the hub ` +
          'account it is linked to; an unknown player gives an empty list. Read-only.',
        querystring: FeedQuery,
        response: KillFeedResponse,
      }),
      async (request): Promise<KillFeedBody> => {
        const { game, limit } = request.query;
        const player = playerFilter(request.query.player);
        const rows = await repo.feed({ game, player, limit });
        return { kills: rows.map(toKill) };
      },
    );

    app.get(
      '/killboard/top-frag',
      publicRead({
        operationId: 'killboard_top_frag_get',
        tag: 'Killboard',
        summary: 'Top fraggers',
        description:
          'Players with the most kills in the period, one row per (player, game), ranked by kills descending; ' +
          'ties go to the lower user id, then the game code. `week` is the 7 UTC calendar days ending today, ' +
          '`month` the 30 ending today, `all` every kill. `hs_pct` is headshots / kills × 100 rounded to ' +
          'one decimal. Totals are kept up to date as kills arrive.',
        querystring: TopFragQuery,
        response: TopFragResponse,
      }),
      async (request): Promise<TopFragBody> => {
        const { period, game, limit } = request.query;
        await repo.ensureWindow(now());
        const rows = await repo.topFrag(period, game, limit);
        return {
          period,
          leaders: rows.map((row, i) => ({
            rank: i + 1,
            user_id: row.user_id,
            steam_id: row.steam_id,
            name: row.username,
            game: row.game as TopFragLeader['game'],
            kills: row.kills,
            headshots: row.headshots,
            hs_pct: percent1(row.headshots, row.kills),
          })),
        };
      },
    );
  };
}

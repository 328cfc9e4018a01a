import { Type } from 'typebox';
import { StringEnum } from '../../http/schemas.js';
import { defineEvent } from '../events/define.js';
import { At, Count, Flag, Game, Id, SteamId, Text, UserId } from '../events/fields.js';

/** Events of the ingest pipeline: written in the batch's own transaction (pipeline.ts). */

const KillFields = {
  server_id: Id('Game server the kill happened on', 3),
  game: Game(),
  killer_user_id: UserId('Hub user id of the killer'),
  killer_steam_id: SteamId(),
  victim_user_id: UserId('Hub user id of the victim'),
  victim_steam_id: SteamId(),
  weapon: Text('Weapon as the game names it', 'ak47'),
  headshot: Flag('A headshot'),
  round: Count('Round number on the server', 7),
  occurred_at: At('When the kill happened (server time)'),
};

const KILL_EXAMPLE = {
  server_id: 3,
  game: 'cs2' as const,
  killer_user_id: 42,
  killer_steam_id: '76561198000000042',
  victim_user_id: 43,
  victim_steam_id: '76561198000000043',
  weapon: 'ak47',
  headshot: true,
  round: 7,
  occurred_at: '2026-11-20T18:04:11.000Z',
};

export const KILL_RECORDED = defineEvent({
  type: 'kill.recorded',
  description:
    'One counted kill, told when its round is settled (the next round starts or the match ends). One event per kill: a busy hub sends thousands per minute; subscribe to `kills.batch_recorded` for one event per ingested batch instead.',
  properties: KillFields,
  example: KILL_EXAMPLE,
  scope: 'stats:read',
  audience: 'public',
  highVolume: true,
});

const LiveKiller = {
  killer_user_id: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    examples: [42],
    description: 'Hub user id of the killer; null when the hub has no profile for them yet',
  }),
  killer_steam_id: SteamId(),
  killer_name: Text('Name of the killer in game', 'ace'),
  victim_user_id: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    examples: [43],
    description: 'Hub user id of the victim; null when the hub has no profile for them yet',
  }),
  victim_steam_id: SteamId(),
  victim_name: Text('Name of the victim in game', 'bolt'),
};

export const KILL_PROVISIONAL = defineEvent({
  type: 'kill.provisional',
  description:
    'A kill told as its log line arrives, before its round is settled: provisional. It becomes a `kill.recorded` when the round is settled, unless a `round.voided` for its server and round comes first (then take it back). For live displays (kill feeds, streak announcers); counts, the killboard, XP and ratings use only settled kills. One event per kill.',
  properties: {
    server_id: Id('Game server the kill happened on', 3),
    game: Game(),
    ...LiveKiller,
    weapon: Text('Weapon as the game names it', 'ak47'),
    headshot: Flag('A headshot'),
    round: Count('Round number on the server', 7),
    occurred_at: At('When the kill happened (server time)'),
  },
  example: {
    server_id: 3,
    game: 'cs2',
    killer_user_id: 42,
    killer_steam_id: '76561198000000042',
    killer_name: 'ace',
    victim_user_id: null,
    victim_steam_id: '76561198000000043',
    victim_name: 'bolt',
    weapon: 'ak47',
    headshot: true,
    round: 7,
    occurred_at: '2026-11-20T18:04:11.000Z',
  },
  scope: 'stats:read',
  audience: 'public',
  highVolume: true,
});

export const CHAT_MESSAGE = defineEvent({
  type: 'chat.message',
  description:
    "A player wrote in a server's chat (`say`: everyone, `say_team`: their team), from a line the parser settled as chat (a line whose text forges another player is read by the server's roster, as kills are). Private: told to the server's owner and each operator it granted (one event each, so each reads their own), through an app they authorized with `chat:read`; never to an API key.",
  properties: {
    server_id: Id('Game server', 3),
    game: Game(),
    steam_id: Type.Union([Type.String({ pattern: '^\\d{17}$' }), Type.Null()], {
      examples: ['76561198000000042'],
      description: 'SteamID64 of the sender; null for a bot or an id the roster found shared (fake)',
    }),
    user_id: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      examples: [42],
      description: 'Hub user id of the sender; null when the hub has no profile for them',
    }),
    name: Text('Name of the sender in game', 'ace'),
    team: Text('Side of the sender as the line wrote it (`CT`, `TERRORIST`, `Spectator`, empty)', 'CT'),
    channel: StringEnum(['all', 'team'] as const, {
      description: '`all`: said to everyone (`say`); `team`: to the sender’s team (`say_team`)',
      examples: ['all'],
    }),
    text: Type.String({ maxLength: 4096, description: 'What was written, as typed', examples: ['!rank'] }),
    occurred_at: At('When it was written (server time)'),
  },
  example: {
    server_id: 3,
    game: 'cs2',
    steam_id: '76561198000000042',
    user_id: 42,
    name: 'ace',
    team: 'CT',
    channel: 'all',
    text: '!rank',
    occurred_at: '2026-11-20T18:04:11.000Z',
  },
  scope: 'chat:read',
  audience: 'user',
});

export const KILLS_BATCH_RECORDED = defineEvent({
  type: 'kills.batch_recorded',
  description:
    'The kills one ingested batch counted (usually a round), in one event: the batched variant of `kill.recorded`. At most 500 kills per event; a larger batch is told in several.',
  properties: {
    server_id: Id('Game server', 3),
    game: Game(),
    count: Count('Kills in this batch', 1),
    kills: Type.Array(Type.Object(KillFields, { additionalProperties: false }), {
      description: 'The kills, oldest first',
    }),
  },
  example: { server_id: 3, game: 'cs2', count: 1, kills: [KILL_EXAMPLE] },
  scope: 'stats:read',
  audience: 'public',
});

const RoundFields = {
  server_id: Id('Game server', 3),
  game: Game(),
  map: Text('Map', 'de_dust2'),
  round: Count('Round number', 7),
};

export const ROUND_STARTED = defineEvent({
  type: 'round.started',
  description: 'A round of a match started on a server (not during warm-up).',
  properties: RoundFields,
  example: { server_id: 3, game: 'cs2', map: 'de_dust2', round: 7 },
  scope: 'stats:read',
  audience: 'public',
});

export const ROUND_ENDED = defineEvent({
  type: 'round.ended',
  description:
    'A round was settled (the next round started, the match ended or the map changed) and its kills counted.',
  properties: { ...RoundFields, kills: Count('Kills counted in the round', 9) },
  example: { server_id: 3, game: 'cs2', map: 'de_dust2', round: 7, kills: 9 },
  scope: 'stats:read',
  audience: 'public',
});

export const ROUND_VOIDED = defineEvent({
  type: 'round.voided',
  description:
    'The round in play was voided before it was settled (`Match_Start`, `Game_Commencing`, `Restart_Round_(…)`, warm-up, a restored backup): none of its kills count. Take back every `kill.provisional` of this server and round told before this event; `kills` says how many there were.',
  properties: { ...RoundFields, kills: Count('Provisional kills of the round taken back', 3) },
  example: { server_id: 3, game: 'cs2', map: 'de_dust2', round: 7, kills: 3 },
  scope: 'stats:read',
  audience: 'public',
});

export const MATCH_STARTED = defineEvent({
  type: 'match.started',
  description: 'A server started a match (`Match_Start` in the log); earlier rounds are void.',
  properties: { server_id: Id('Game server', 3), game: Game(), map: Text('Map', 'de_dust2') },
  example: { server_id: 3, game: 'cs2', map: 'de_dust2' },
  scope: 'stats:read',
  audience: 'public',
});

export const MATCH_ABANDONED = defineEvent({
  type: 'match.abandoned',
  description:
    'A match with counted rounds stopped before its end (map change, restart, warm-up), or ended without enough players to count: nobody is rated; its counted kills stay.',
  properties: {
    server_id: Id('Game server', 3),
    game: Game(),
    map: Text('Map', 'de_dust2'),
    rounds: Count('Rounds counted', 4),
  },
  example: { server_id: 3, game: 'cs2', map: 'de_dust2', rounds: 4 },
  scope: 'stats:read',
  audience: 'public',
});

const Team = (which: string) =>
  Type.Array(UserId(), { description: `Hub user ids of ${which}`, examples: [[42, 44]] });

export const MATCH_ENDED = defineEvent({
  type: 'match.ended',
  description:
    'A match was played to its end and recorded (team 1 started as CT); Elo, XP and rewards follow in the same batch.',
  properties: {
    match_id: Id('Recorded match', 812),
    server_id: Id('Game server', 3),
    game: Game(),
    map: Text('Map', 'de_dust2'),
    team1_score: Count('Rounds won by team 1', 13),
    team2_score: Count('Rounds won by team 2', 9),
    winner: Type.Integer({
      minimum: 0,
      maximum: 2,
      description: 'Winning team (1 or 2), 0 for a draw',
      examples: [1],
    }),
    team1: Team('team 1'),
    team2: Team('team 2'),
    ended_at: At('When the match ended (server time)'),
  },
  example: {
    match_id: 812,
    server_id: 3,
    game: 'cs2',
    map: 'de_dust2',
    team1_score: 13,
    team2_score: 9,
    winner: 1,
    team1: [42, 44],
    team2: [43, 45],
    ended_at: '2026-11-20T18:40:00.000Z',
  },
  scope: 'stats:read',
  audience: 'public',
});

export const ELO_CHANGED = defineEvent({
  type: 'elo.changed',
  description: "A player's Elo rating changed with a rated match (one event per player of the match).",
  properties: {
    user_id: UserId(),
    game: Game(),
    match_id: Id('The rated match', 812),
    rating_before: Type.Integer({ description: 'Rating before the match', examples: [1000] }),
    rating: Type.Integer({ description: 'Rating after the match', examples: [1025] }),
    won: Flag("The player's team won"),
  },
  example: { user_id: 42, game: 'cs2', match_id: 812, rating_before: 1000, rating: 1025, won: true },
  scope: 'stats:read',
  audience: 'public',
});

export const PLAYER_XP_GAINED = defineEvent({
  type: 'player.xp_gained',
  description:
    'XP a player earned in one ingested batch (kills, headshots, matches, achievements), with the reasons. One event per active player per batch.',
  properties: {
    user_id: UserId(),
    amount: Count('XP gained', 35),
    total_xp: Count('Total XP after the gain', 12_035),
    reasons: Type.Array(
      Type.Object(
        { reason: Text('Why', 'kill'), amount: Count('XP for it', 10) },
        { additionalProperties: false },
      ),
      { description: 'XP by reason' },
    ),
  },
  example: {
    user_id: 42,
    amount: 35,
    total_xp: 12_035,
    reasons: [
      { reason: 'kill', amount: 30 },
      { reason: 'headshot', amount: 5 },
    ],
  },
  scope: 'stats:read',
  audience: 'public',
  highVolume: true,
});

export const PLAYER_LEVEL_UP = defineEvent({
  type: 'player.level_up',
  description: 'A player reached a new level.',
  properties: {
    user_id: UserId(),
    level_before: Count('Level before', 11),
    level: Count('New level', 12),
    total_xp: Count('Total XP', 12_035),
  },
  example: { user_id: 42, level_before: 11, level: 12, total_xp: 12_035 },
  scope: 'stats:read',
  audience: 'public',
});

export const ACHIEVEMENT_UNLOCKED = defineEvent({
  type: 'achievement.unlocked',
  description: 'A player unlocked an achievement (its XP is in the same batch).',
  properties: { user_id: UserId(), achievement_id: Id('Achievement', 5), code: Text('Code', 'first_blood') },
  example: { user_id: 42, achievement_id: 5, code: 'first_blood' },
  scope: 'stats:read',
  audience: 'public',
});

export const PLAYER_REGISTERED = defineEvent({
  type: 'player.registered',
  description:
    'A SteamID was seen on a hub server for the first time and got a hub profile (a welcome is due on `server_id`).',
  properties: {
    user_id: UserId(),
    steam_id: SteamId(),
    name: Text('Name in game', 'ace'),
    server_id: Id('The game server they were first seen on', 3),
    game: Game(),
  },
  example: { user_id: 42, steam_id: '76561198000000042', name: 'ace', server_id: 3, game: 'cs2' },
  scope: 'stats:read',
  audience: 'public',
});

export const TOURNAMENT_MATCH_REPORTED = defineEvent({
  type: 'tournament.match_reported',
  description: 'A match of a tournament was played and recorded.',
  properties: {
    tournament_id: Id('Tournament', 2),
    match_id: Id('Recorded match', 812),
    team1_score: Count('Rounds won by team 1', 13),
    team2_score: Count('Rounds won by team 2', 9),
  },
  example: { tournament_id: 2, match_id: 812, team1_score: 13, team2_score: 9 },
  scope: 'tournaments:read',
  audience: 'public',
});

export const TOURNAMENT_PLAYER_JOINED = defineEvent({
  type: 'tournament.player_joined',
  description: 'A player played their first match of a tournament and became a participant.',
  properties: { tournament_id: Id('Tournament', 2), user_id: UserId() },
  example: { tournament_id: 2, user_id: 42 },
  scope: 'tournaments:read',
  audience: 'public',
});

export const INGEST_EVENTS = [
  KILL_RECORDED,
  KILLS_BATCH_RECORDED,
  KILL_PROVISIONAL,
  ROUND_STARTED,
  ROUND_ENDED,
  ROUND_VOIDED,
  MATCH_STARTED,
  MATCH_ENDED,
  MATCH_ABANDONED,
  ELO_CHANGED,
  PLAYER_XP_GAINED,
  PLAYER_LEVEL_UP,
  ACHIEVEMENT_UNLOCKED,
  PLAYER_REGISTERED,
  TOURNAMENT_MATCH_REPORTED,
  TOURNAMENT_PLAYER_JOINED,
  CHAT_MESSAGE,
];
